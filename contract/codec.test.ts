/** The codec as the sidecars use it: their own messages, bytes as gRPC hands them over (Node Buffers). */
import { decodeMessage, encodeMessage, toAny } from './codec.js';
import { TYPE_URL } from './names.js';

const AUTH_CONFIG = 'sluice.extauth.v1.AuthConfig';

test('an AuthConfig round-trips; lowerCamel names are read, snake_case written; zero values left out', () => {
  const bytes = encodeMessage(AUTH_CONFIG, {
    name: 'ns.a',
    configs: [{ ldap: { address: 'ldap://l:389', userDnTemplate: 'uid=%s', pool: { max_size: 3, initial_size: 0 } } }],
  });
  expect(decodeMessage(AUTH_CONFIG, Buffer.from(bytes))).toEqual({
    name: 'ns.a',
    configs: [{ ldap: { address: 'ldap://l:389', user_dn_template: 'uid=%s', pool: { max_size: 3 } } }],
  });
});

test('toAny names the type by its URL', () => {
  const any = toAny({ '@type': TYPE_URL.authConfig, name: 'ns.a' });
  expect(any.type_url).toBe(TYPE_URL.authConfig);
  expect(decodeMessage(AUTH_CONFIG, any.value)).toEqual({ name: 'ns.a' });
});

test('truncated bytes are an error, also in a Buffer (never a value cut short)', () => {
  const bytes = Buffer.from(encodeMessage(AUTH_CONFIG, { name: 'ns.abcdef' }));
  expect(() => decodeMessage(AUTH_CONFIG, bytes.subarray(0, bytes.length - 3))).toThrow('index out of range');
});

test('an unknown type name is an error naming it', () => {
  expect(() => decodeMessage('sluice.nope.v1.Nope', new Uint8Array())).toThrow('no message type sluice.nope.v1.Nope');
});
