/** Gloo's `basicAuth` config (extauth.proto `BasicAuth`): `apr.users`, or `encryption` with `userList`. */
import { Type, type Static } from '@sinclair/typebox';
import { note } from '../gloo.js';
import { exactlyOne, mapOf, object, singleLine, string } from '../schema.js';

const USERNAME = Type.String({ minLength: 1, pattern: '^[^:\\x00-\\x1f\\x7f]+$' });

const saltedHash = object({ salt: singleLine, hashedPassword: singleLine }, ['salt', 'hashedPassword']);
const users = note(mapOf(saltedHash, USERNAME, { minProperties: 1 }), 'username (no ":") -> salt and hash');

export const basicAuth = object({
  realm: note(string, 'sent in the 401\'s WWW-Authenticate: Basic realm="..."'),
  apr: note(
    object({ users }, ['users']),
    'APR1 hashes, as htpasswd -m and openssl passwd -apr1 make them ($apr1$<salt>$<hash>)',
  ),
  encryption: object(
    {
      apr: note(object({}), 'APR1 hashes'),
      sha1: note(object({}), 'hex SHA-1 of the password followed by the salt, compared case-insensitively'),
    },
    [],
    exactlyOne('apr', 'sha1'),
  ),
  userList: object({ users }, ['users']),
});

export type BasicAuthSpec = Static<typeof basicAuth>;
