/**
 * JSON <-> protobuf conversion of gRPC resolvers, on real protobufjs types:
 * each request value goes through toMessage, encode and decode, as a call
 * sends it; each answer through encode, decode and fromMessage.
 */
import protobuf from 'protobufjs';
import { fromMessage, MessageError, toMessage } from './messages.js';

// (protobufjs' INamespace type has no keyType: map fields are typed apart.)
const root = protobuf.Root.fromJSON(<protobuf.INamespace>{
  nested: {
    t: {
      nested: {
        Color: { values: { COLOR_UNSPECIFIED: 0, RED: 1, BLUE: 2 } },
        Inner: { fields: { postal_code: { type: 'string', id: 1 }, n: { type: 'int32', id: 2 } } },
        All: {
          oneofs: { choice: { oneof: ['by_name', 'by_id'] } },
          fields: {
            i32: { type: 'int32', id: 1 },
            u32: { type: 'uint32', id: 2 },
            i64: { type: 'int64', id: 3 },
            u64: { type: 'uint64', id: 4 },
            s64: { type: 'sint64', id: 5 },
            text: { type: 'string', id: 6 },
            flag: { type: 'bool', id: 7 },
            ratio: { type: 'double', id: 8 },
            color: { type: 'Color', id: 9 },
            inner: { type: 'Inner', id: 10 },
            inners: { rule: 'repeated', type: 'Inner', id: 11 },
            ids: { rule: 'repeated', type: 'int64', id: 12 },
            blob: { type: 'bytes', id: 13 },
            labels: { keyType: 'string', type: 'int32', id: 14 },
            by_name: { type: 'string', id: 15 },
            by_id: { type: 'int32', id: 16 },
            small: { type: 'float', id: 17 },
          },
        },
      },
    },
  },
});
const All = root.lookupType('t.All');

/** What the upstream decodes from `value` (toMessage, encode, decode), as plain proto JSON. */
function sent(value: unknown): Record<string, unknown> {
  const bytes = All.encode(toMessage(All, value)).finish();
  return All.toObject(All.decode(bytes), { longs: String, enums: String, bytes: String }) as Record<string, unknown>;
}

/** What a resolver answers for `value` (fromObject, encode, decode, fromMessage). */
function answered(value: Record<string, unknown>): Record<string, unknown> {
  return fromMessage(All, All.decode(All.encode(All.fromObject(value)).finish()));
}

describe('toMessage: JSON values into request fields', () => {
  test('integers from numbers and decimal strings; 64-bit ones exact beyond 2^53', () => {
    expect(
      sent({
        i32: '12',
        u32: 4294967295,
        i64: '-9223372036854775808',
        u64: '18446744073709551615',
        s64: 9007199254740991,
      }),
    ).toEqual({
      i32: 12,
      u32: 4294967295,
      i64: '-9223372036854775808',
      u64: '18446744073709551615',
      s64: '9007199254740991',
    });
    expect(sent({ ids: ['9007199254740993', 1] })).toEqual({ ids: ['9007199254740993', '1'] });
  });

  test.each([
    [{ i32: 'abc' }, /t\.All\.i32: expects an integer \(int32\), got "abc"/],
    [{ i32: '12abc' }, /expects an integer/],
    [{ i32: 1.5 }, /expects an integer/],
    [{ i32: true }, /expects an integer/],
    [{ i32: 2147483648 }, /2147483648 is out of range for int32/],
    [{ u32: -1 }, /-1 is out of range for uint32/],
    [{ u64: '18446744073709551616' }, /out of range for uint64/],
    [{ i64: ' 1' }, /expects an integer \(int64\)/],
  ])('%j is refused', (value, message) => {
    expect(() => toMessage(All, value)).toThrow(MessageError);
    expect(() => toMessage(All, value)).toThrow(message);
  });

  test('strings take any scalar as its text; bools true/false or their text; doubles numbers or numeric text', () => {
    expect(sent({ text: 12, flag: 'false', ratio: '2.5' })).toEqual({ text: '12', flag: false, ratio: 2.5 });
    expect(sent({ text: true, flag: true })).toEqual({ text: 'true', flag: true });
    expect(() => toMessage(All, { flag: 'yes' })).toThrow(/t\.All\.flag: expects a bool, got "yes"/);
    expect(() => toMessage(All, { flag: 1 })).toThrow(/expects a bool/);
    expect(() => toMessage(All, { ratio: 'x' })).toThrow(/expects a double/);
    expect(() => toMessage(All, { text: { a: 1 } })).toThrow(/expects a string, got \{"a":1\}/);
  });

  test('enums by name or number; others are refused with the values', () => {
    expect(sent({ color: 'BLUE' })).toEqual({ color: 'BLUE' });
    expect(sent({ color: 1 })).toEqual({ color: 'RED' });
    expect(sent({ color: '2' })).toEqual({ color: 'BLUE' });
    expect(() => toMessage(All, { color: 'GREEN' })).toThrow(
      /"GREEN" is not a value of enum t.Color \(COLOR_UNSPECIFIED, RED, BLUE\)/,
    );
    expect(() => toMessage(All, { color: 7 })).toThrow(/7 is not a value of enum t.Color/);
  });

  test('nested and repeated messages, fields by proto or JSON name; unknown fields name their path', () => {
    expect(sent({ inner: { postalCode: 'N1', n: '3' }, inners: [{ postal_code: 'A' }, {}] })).toEqual({
      inner: { postal_code: 'N1', n: 3 },
      inners: [{ postal_code: 'A' }, {}],
    });
    expect(() => toMessage(All, { inner: { zip: 'N1' } })).toThrow(
      /t\.All\.inner\.zip: t.Inner has no such field \(its fields: postal_code, n\)/,
    );
    expect(() => toMessage(All, { inners: [{}, { n: 'x' }] })).toThrow(/t\.All\.inners\[1\]\.n: expects an integer/);
    expect(() => toMessage(All, { inners: { n: 1 } })).toThrow(/t\.All\.inners: a repeated field is a JSON array/);
    expect(() => toMessage(All, { inner: 'N1' })).toThrow(
      /t\.All\.inner: expects a t.Inner message \(a JSON object\), got "N1"/,
    );
  });

  test('null and absent values leave fields unset; maps; bytes as base64; one member per oneof', () => {
    expect(sent({ i32: null, text: undefined, labels: { a: '1', b: 2 }, blob: 'aGk=', by_id: 4 })).toEqual({
      labels: { a: 1, b: 2 },
      blob: 'aGk=',
      by_id: 4,
    });
    expect(() => toMessage(All, { blob: 'not base64!' })).toThrow(/expects bytes as base64 text/);
    expect(() => toMessage(All, { by_name: 'x', byId: 3 })).toThrow(/t\.All\.by_id: oneof choice already has by_name/);
  });
});

describe('fromMessage: answers as plain objects', () => {
  test('every field under its proto name and its JSON name; nested and repeated messages too', () => {
    const out = answered({ inner: { postal_code: 'N1' }, inners: [{ postal_code: 'A', n: 2 }] });
    expect(out.inner).toEqual({ postal_code: 'N1', postalCode: 'N1', n: 0 });
    expect(out.inners).toEqual([{ postal_code: 'A', postalCode: 'A', n: 2 }]);
    expect(out.by_name).toBeNull();
    expect(out.byName).toBeNull();
  });

  test('unset scalars read as proto3 defaults, unset messages and oneof members as null', () => {
    expect(answered({ by_id: 0 })).toEqual({
      i32: 0,
      u32: 0,
      i64: '0',
      u64: '0',
      s64: '0',
      text: '',
      flag: false,
      ratio: 0,
      color: 'COLOR_UNSPECIFIED',
      inner: null,
      inners: [],
      ids: [],
      blob: '',
      labels: {},
      by_name: null,
      byName: null,
      // A oneof member that is set, even to its default, is on the wire.
      by_id: 0,
      byId: 0,
      small: 0,
    });
  });

  test('64-bit integers as exact decimal strings, enums by name (or number when unknown), bytes as base64', () => {
    const out = answered({
      i64: '-9007199254740993',
      u64: '18446744073709551615',
      ids: ['1', '9007199254740993'],
      color: 2,
      blob: Buffer.from('hi'),
    });
    expect(out).toMatchObject({
      i64: '-9007199254740993',
      u64: '18446744073709551615',
      ids: ['1', '9007199254740993'],
      color: 'BLUE',
      blob: 'aGk=',
    });
    const unknown = fromMessage(All, All.decode(All.encode({ color: 9 }).finish()));
    expect(unknown.color).toBe(9);
  });
});
