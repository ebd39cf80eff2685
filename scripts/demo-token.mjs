// Prints a token signed with the demo key of examples/jwt-inline.yaml (valid for an hour):
//   node scripts/demo-token.mjs '{"sub":"alice","role":"reader"}' [--expired] [--forged]
// Claims given win over the defaults (e.g. "iss" for another issuer). --expired: expired an
// hour ago; --forged: signed with a throwaway key instead (a bad signature).
// The demo key is public (it is in this repository): never trust it anywhere real.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { importPKCS8, SignJWT } from 'jose';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const unknown = [...flags].filter((f) => f !== '--expired' && f !== '--forged');
if (unknown.length) {
  console.error(`demo-token: unknown option ${unknown.join(', ')}: use --expired or --forged`);
  process.exit(2);
}
const claims = JSON.parse(args.find((a) => !a.startsWith('--')) ?? '{"sub":"alice","role":"reader"}');
const now = Math.floor(Date.now() / 1000);
const pem = flags.has('--forged')
  ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' })
  : readFileSync(new URL('../examples/keys/demo-private.pem', import.meta.url), 'utf8');
const key = await importPKCS8(pem, 'RS256');
const token = await new SignJWT({
  iss: 'https://issuer.sluice.example',
  iat: flags.has('--expired') ? now - 7200 : now,
  exp: flags.has('--expired') ? now - 3600 : now + 3600,
  ...claims,
})
  .setProtectedHeader({ alg: 'RS256' })
  .sign(key);
console.log(token);
