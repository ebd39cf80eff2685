/** Gloo's `opaServerAuth` (an OPA server the team runs) and `opaAuth` (refused: no Rego engine here). */
import { type Static } from '@sinclair/typebox';
import { note, refused } from '../gloo.js';
import { object, singleLine } from '../schema.js';

export const opaServerAuth = object(
  {
    package: note(singleLine, 'the Rego package, dotted'),
    ruleName: note(
      singleLine,
      'the rule queried (a / path may reach into its value); unset: the whole package document',
    ),
    serverAddr: note(
      singleLine,
      'host:port or http://host:port of the OPA server; required (Sluice has no OPA sidecar to default to)',
    ),
    options: object({
      fastInputConversion: refused('the input is always the whole check request, as OPA reads it'),
      returnDecisionReason: refused(
        "Sluice writes no dynamic metadata for Envoy; the reason of a denial is in sluice-extauth's log",
      ),
    }),
  },
  ['package', 'serverAddr'],
);

export const opaAuth = refused(
  'it evaluates Rego inside the auth server, and no Rego interpreter is in npm or Debian: @open-policy-agent/opa-wasm runs only policies the opa binary compiled to WebAssembly, and @open-policy-agent/opa is a client of an OPA server',
  'run OPA as a server and use opaServerAuth',
);

export type OpaServerAuthSpec = Static<typeof opaServerAuth>;
