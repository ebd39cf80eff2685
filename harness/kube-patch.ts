/**
 * The patch formats the API server double applies: JSON merge patch
 * (RFC 7386, `application/merge-patch+json`) and JSON patch (RFC 6902,
 * `application/json-patch+json`). A failed JSON patch throws a PatchError
 * (the API server answers 422).
 */

export class PatchError extends Error {}

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

interface Operation {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The container holding the last token of `path`, and that token. */
function parentOf(doc: Json, path: string): { container: Json; key: string } {
  const tokens = pointer(path);
  if (tokens.length === 0) throw new PatchError('the whole document cannot be the target');
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(token)] : isObject(node) ? node[token] : undefined;
    if (node === undefined) throw new PatchError(`path ${path} does not exist`);
  }
  return { container: node, key: tokens[tokens.length - 1] };
}

function get(doc: Json, path: string): Json {
  let node = doc;
  for (const token of pointer(path)) {
    node = Array.isArray(node) ? node[Number(token)] : isObject(node) ? node[token] : undefined;
    if (node === undefined) throw new PatchError(`path ${path} does not exist`);
  }
  return node;
}

function remove(doc: Json, path: string): Json {
  const { container, key } = parentOf(doc, path);
  if (Array.isArray(container)) {
    const index = Number(key);
    if (!(index >= 0 && index < container.length)) throw new PatchError(`path ${path} does not exist`);
    return container.splice(index, 1)[0];
  }
  if (!isObject(container) || !Object.hasOwn(container, key)) throw new PatchError(`path ${path} does not exist`);
  const value = container[key];
  delete container[key];
  return value;
}

function add(doc: Json, path: string, value: Json): void {
  const { container, key } = parentOf(doc, path);
  if (Array.isArray(container)) {
    const index = key === '-' ? container.length : Number(key);
    if (!(index >= 0 && index <= container.length)) throw new PatchError(`path ${path} is out of bounds`);
    container.splice(index, 0, value);
  } else if (isObject(container)) container[key] = value;
  else throw new PatchError(`path ${path} does not exist`);
}

function equal(a: Json, b: Json): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function jsonPatch(target: Json, operations: Json): Json {
  if (!Array.isArray(operations)) throw new PatchError('a JSON patch is an array of operations');
  const doc = structuredClone(target);
  for (const operation of operations as Operation[]) {
    const { op, path } = operation;
    switch (op) {
      case 'add':
        add(doc, path, structuredClone(operation.value));
        break;
      case 'remove':
        remove(doc, path);
        break;
      case 'replace':
        remove(doc, path);
        add(doc, path, structuredClone(operation.value));
        break;
      case 'move':
        add(doc, path, remove(doc, operation.from ?? ''));
        break;
      case 'copy':
        add(doc, path, structuredClone(get(doc, operation.from ?? '')));
        break;
      case 'test':
        if (!equal(get(doc, path), operation.value)) throw new PatchError(`test failed at ${path}`);
        break;
      default:
        throw new PatchError(`unknown operation ${JSON.stringify(op)}`);
    }
  }
  return doc;
}
