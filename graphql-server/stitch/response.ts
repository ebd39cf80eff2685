/**
 * The client's response from a plan's merged answers: fields in the
 * client's order, key fields and anything not asked for dropped, non-null
 * rules applied (a null in a non-null position makes the nearest nullable
 * parent null). `completeData` builds the data as an object (the
 * ExecutionResult the tests compare with @graphql-tools/stitch's);
 * `writeResponse` writes the same response straight to JSON from the plan's
 * shape, in one walk, without the object: the bytes JSON.stringify of that
 * ExecutionResult gives (tested over many documents).
 */
import type { GraphQLError } from 'graphql';
import type { WrittenResult } from '../api.js';
import type { Output, ShapeField } from './plan.js';

type Obj = Record<string, unknown>;

/** Marks a null in a non-null position: the nearest nullable parent becomes null. */
const BUBBLE = Symbol('null in a non-null position');

/** The data of the response: null when a non-null root field is null. */
export function completeData(root: Obj, shape: ShapeField[]): Obj | null {
  const data = completeObject(root, shape);
  return data === BUBBLE ? null : data;
}

function completeObject(object: Obj, shape: ShapeField[]): Obj | typeof BUBBLE {
  const out: Obj = {};
  for (const f of shape) {
    const v = complete(object[f.key], f.output);
    if (v === BUBBLE) return BUBBLE;
    out[f.key] = v;
  }
  return out;
}

function complete(value: unknown, output: Output): unknown {
  if (output.kind === 'nonNull') {
    const v = complete(value, output.of);
    return v === null || v === BUBBLE ? BUBBLE : v;
  }
  if (value === null || value === undefined) return null;
  if (output.kind === 'list') {
    if (!Array.isArray(value)) return null;
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = complete(value[i], output.of);
      if (v === BUBBLE) return null;
      out[i] = v;
    }
    return out;
  }
  if (output.kind === 'object') {
    const v = completeObject(value as Obj, output.fields);
    return v === BUBBLE ? null : v;
  }
  return value;
}

/** JSON.stringify({ data: completeData(root, shape), errors }) (errors only when there are some), written from the shape. */
export function writeResponse(root: Obj, shape: ShapeField[], errors: readonly GraphQLError[]): WrittenResult {
  const written = writeObject(root, shape);
  const data = written === BUBBLE ? 'null' : written;
  return {
    json: errors.length ? `{"data":${data},"errors":${JSON.stringify(errors)}}` : `{"data":${data}}`,
    data: written === BUBBLE ? 'null' : 'present',
    hasErrors: errors.length > 0,
  };
}

function writeObject(object: Obj, shape: ShapeField[]): string | typeof BUBBLE {
  let out = '{';
  for (let i = 0; i < shape.length; i++) {
    const f = shape[i]!;
    const v = write(object[f.key], f.output);
    if (v === BUBBLE) return BUBBLE;
    out += i === 0 ? f.label + v : ',' + f.label + v;
  }
  return out + '}';
}

function write(value: unknown, output: Output): string | typeof BUBBLE {
  if (output.kind === 'nonNull') {
    const v = write(value, output.of);
    return v === 'null' || v === BUBBLE ? BUBBLE : v;
  }
  if (value === null || value === undefined) return 'null';
  if (output.kind === 'list') {
    if (!Array.isArray(value)) return 'null';
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v = write(value[i], output.of);
      if (v === BUBBLE) return 'null';
      out += i === 0 ? v : ',' + v;
    }
    return out + ']';
  }
  if (output.kind === 'object') {
    const v = writeObject(value as Obj, output.fields);
    return v === BUBBLE ? 'null' : v;
  }
  return JSON.stringify(value);
}
