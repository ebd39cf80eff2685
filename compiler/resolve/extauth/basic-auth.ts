/**
 * Gloo's `basicAuth` config: `apr.users`, or `encryption` (apr or sha1)
 * with `userList.users` (Gloo's rule: one form or the other, never both);
 * each salt and hash checked against the algorithm's shape.
 */
import { storedHashProblem } from '../../../contract/extauth.js';
import { fieldError, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { BasicAuthIR } from '../../ir/model.js';
import type { BasicAuthSpec } from '../../kinds/extauth/basic-auth.js';
import type { Resource } from '../../validate/validate.js';

const FORMS_HINT = 'write either apr.users, or encryption (apr: {} or sha1: {}) together with userList.users';

export function resolveBasicAuth(
  ac: Resource,
  path: FieldPath,
  spec: BasicAuthSpec,
  diagnostics: Diagnostic[],
): BasicAuthIR | undefined {
  const fail = (at: FieldPath, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, at, message, hint));
    return undefined;
  };
  if (spec.apr && (spec.encryption || spec.userList))
    return fail(path, `sets apr together with ${spec.encryption ? 'encryption' : 'userList'}`, FORMS_HINT);
  if (!spec.apr && !(spec.encryption && spec.userList))
    return fail(
      path,
      spec.encryption
        ? 'sets encryption without userList'
        : spec.userList
          ? 'sets userList without encryption'
          : 'has no users',
      FORMS_HINT,
    );
  const algorithm = spec.encryption?.sha1 ? 'SHA1' : 'APR1';
  const usersAt = spec.apr ? [...path, 'apr', 'users'] : [...path, 'userList', 'users'];
  const users = (spec.apr ?? spec.userList)!.users;
  let ok = true;
  for (const [user, { salt, hashedPassword }] of Object.entries(users)) {
    const bad = storedHashProblem(algorithm, salt, hashedPassword);
    if (!bad) continue;
    ok = false;
    const hint =
      algorithm === 'SHA1'
        ? 'hashedPassword is the hex SHA-1 of the password followed by the salt'
        : 'from `openssl passwd -apr1 PASSWORD`, $apr1$SALT$HASH: salt is SALT, hashedPassword is HASH';
    fail([...usersAt, user, bad.field === 'salt' ? 'salt' : 'hashedPassword'], bad.problem, hint);
  }
  return ok ? { realm: spec.realm ?? '', algorithm, users } : undefined;
}
