// Prints a token signed with the demo key of examples/secure.yaml:
//   node scripts/demo-token.mjs '{"sub":"alice","role":"reader"}'
// The demo key is public (it is in this repository): never trust it anywhere real.
import { readFileSync } from 'node:fs';
import { importPKCS8, SignJWT } from 'jose';

const claims = JSON.parse(process.argv[2] ?? '{"sub":"alice","role":"reader"}');
const key = await importPKCS8(readFileSync(new URL('../examples/keys/demo-private.pem', import.meta.url), 'utf8'), 'RS256');
const token = await new SignJWT(claims)
  .setProtectedHeader({ alg: 'RS256' })
  .setIssuer('https://issuer.sluice.example')
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(key);
console.log(token);
