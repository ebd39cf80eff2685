/**
 * Gloo's failOnRedirect: compiled from the AuthConfig into extauth.json,
 * read by sluice-extauth, and applied to the final verdict (a login
 * redirect, as the OIDC module answers a browser without a session,
 * becomes 401 without the redirect's headers; other answers are left as
 * they are).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderOutput, textOf } from '../../compiler/emit/write.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { failOnRedirect } from '../../extauth-server/authorizer.js';
import { parseAuthConfigSet } from '../../extauth-server/config.js';
import { allow, deny } from '../../extauth-server/module.js';
import { tempDir } from '../../harness/temp-dir.js';

test('compiled into fail_on_redirect and read by the sidecar; unset, false', async () => {
  const dir = tempDir('fail-on-redirect');
  const ac = (name: string, extra: string) => `apiVersion: enterprise.gloo.solo.io/v1
kind: AuthConfig
metadata: {name: ${name}, namespace: default}
spec:
  ${extra}
  configs:
    - oauth2: {accessTokenValidation: {introspectionUrl: 'http://idp:8080/introspect'}}
`;
  await writeFile(
    path.join(dir, 'a.yaml'),
    [ac('api', 'failOnRedirect: true'), ac('web', 'failOnRedirect: false')].join('---\n'),
  );
  const result = await compileFiles([dir], DEFAULT_OPTIONS);
  expect(result.diagnostics).toEqual([]);
  const json = JSON.parse(textOf(renderOutput(result.xds!, DEFAULT_OPTIONS, 'json')['extauth.json']!));
  const configs = parseAuthConfigSet(json);
  expect(configs.map((c) => [c.name, c.failOnRedirect])).toEqual([
    ['default.api', true],
    ['default.web', false],
  ]);
});

test("a login redirect becomes 401 without the redirect's location and cookie; other verdicts are unchanged", () => {
  const login = deny(302, 'login', {
    headers: [
      { key: 'location', value: 'http://idp/authorize?state=s' },
      { key: 'set-cookie', value: 'state=s', append: true },
    ],
    redirect: true,
  });
  const answered = failOnRedirect(login);
  expect(answered).toMatchObject({ kind: 'deny', status: 401, headers: [] });
  const forbidden = deny(403, 'no');
  expect(failOnRedirect(forbidden)).toBe(forbidden);
  // A 302 that is not a login redirect (e.g. a pass-through service's answer) is the service's to give.
  const serviceRedirect = deny(302, 'moved', { headers: [{ key: 'location', value: '/elsewhere' }] });
  expect(failOnRedirect(serviceRedirect)).toBe(serviceRedirect);
  const ok = allow();
  expect(failOnRedirect(ok)).toBe(ok);
});
