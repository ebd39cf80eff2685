/**
 * Envoy's protos as JSON, written by the build and read by every process
 * that needs them, which then builds only the types it uses. Parsing the
 * thousand-odd .proto files costs about a second and a half of CPU per
 * process, and a compile touches a few hundred of their types.
 *
 * The JSON holds each top-level definition (a package's message, enum or
 * service, with what is nested in it) with the definitions its fields and
 * methods refer to, so asking for a type adds it and what it needs to the
 * Root, and their references resolve as in the Root of every file.
 * protobufjs's JSON keeps each object's `options` but not its
 * `parsedOptions` (protoc-gen-validate's rules are read from those), so they
 * are kept beside it.
 */
import fs from 'node:fs';
import protobuf from 'protobufjs';

interface Definition {
  /** Its package ('' for none) and name in it. */
  pkg: string;
  name: string;
  json: protobuf.AnyNestedObject;
  /** The definitions (indexes) its fields and methods refer to. */
  deps: number[];
  /** `parsedOptions` of it and of what is nested in it, by full name. */
  parsedOptions: Record<string, unknown>;
}

interface RootJson {
  /** What the Root was loaded from (see envoy.ts); a cache of another key is not used. */
  key: string;
  skipped: string[];
  /** Every full name (without the leading dot), nested ones included: the definition that holds it. */
  names: Record<string, number>;
  definitions: Definition[];
}

const isDefinition = (o: protobuf.ReflectionObject): o is protobuf.Type | protobuf.Enum | protobuf.Service =>
  o instanceof protobuf.Type || o instanceof protobuf.Enum || o instanceof protobuf.Service;

/** `object` and everything in it: nested types, enums and services, fields, oneofs and methods. */
function* within(object: protobuf.ReflectionObject): Generator<protobuf.ReflectionObject> {
  yield object;
  if (object instanceof protobuf.Type) {
    yield* object.fieldsArray;
    yield* object.oneofsArray;
  }
  if (object instanceof protobuf.Service) yield* object.methodsArray;
  if (object instanceof protobuf.Namespace) for (const nested of object.nestedArray) yield* within(nested);
}

const nameOf = (o: protobuf.ReflectionObject) => o.fullName.replace(/^\./, '');

/** What a definition's fields and methods refer to. */
function referred(object: protobuf.ReflectionObject): protobuf.ReflectionObject[] {
  if (object instanceof protobuf.Field) return object.resolvedType ? [object.resolvedType] : [];
  if (object instanceof protobuf.Method)
    return [object.resolvedRequestType, object.resolvedResponseType].filter((t): t is protobuf.Type => t !== null);
  return [];
}

/** The JSON of a resolved Root. Extension fields declared at a package's level are left out: nothing here reads them. */
export function rootJson(root: protobuf.Root, skipped: readonly string[], key: string): string {
  const found: { pkg: string; object: protobuf.Type | protobuf.Enum | protobuf.Service }[] = [];
  const visit = (ns: protobuf.NamespaceBase, pkg: string) => {
    for (const nested of ns.nestedArray) {
      if (isDefinition(nested)) found.push({ pkg, object: nested });
      else if (nested instanceof protobuf.Namespace) visit(nested, pkg ? `${pkg}.${nested.name}` : nested.name);
    }
  };
  visit(root, '');
  const names: Record<string, number> = {};
  found.forEach(({ object }, i) => {
    for (const o of within(object)) names[nameOf(o)] = i;
  });
  const definitions = found.map(({ pkg, object }, i): Definition => {
    const deps = new Set<number>();
    const parsedOptions: Record<string, unknown> = {};
    for (const o of within(object)) {
      if (o.parsedOptions) parsedOptions[nameOf(o)] = o.parsedOptions;
      for (const target of referred(o)) {
        const dep = names[nameOf(target)];
        if (dep !== undefined && dep !== i) deps.add(dep);
      }
    }
    return { pkg, name: object.name, json: object.toJSON(), deps: [...deps], parsedOptions };
  });
  return JSON.stringify({ key, skipped: [...skipped], names, definitions } satisfies RootJson);
}

type LookupImpl = (path: string[], flatPath: string) => protobuf.ReflectionObject | null;

/** A Root that holds the definitions asked for so far and what they refer to. */
export class LazyRoot {
  readonly root = new protobuf.Root();
  private readonly loaded: boolean[];

  constructor(private readonly cache: RootJson) {
    this.loaded = cache.definitions.map(() => false);
    // protobufjs finds the type of an Any's JSON form (`@type`) by a lookup that walks up to the Root: a
    // full name no definition added so far has is added there, so that lookup answers as in the Root of every file.
    const root = this.root as unknown as { _lookupImpl: LookupImpl };
    const own = root._lookupImpl.bind(root);
    root._lookupImpl = (path, flatPath) => own(path, flatPath) ?? (this.require(flatPath) ? own(path, flatPath) : null);
  }

  get skipped(): string[] {
    return this.cache.skipped;
  }

  /** Adds the definition that holds `fullName`, with what it needs; false when no definition has that name. */
  require(fullName: string): boolean {
    const index = this.cache.names[fullName];
    if (index === undefined) return false;
    this.add(index);
    return true;
  }

  /** Adds every definition: the Root of every file. */
  requireAll(): void {
    this.cache.definitions.forEach((_, i) => this.add(i));
  }

  private add(first: number): void {
    const stack = [first];
    while (stack.length > 0) {
      const index = stack.pop()!;
      if (this.loaded[index]) continue;
      this.loaded[index] = true;
      const { pkg, name, json, deps, parsedOptions } = this.cache.definitions[index];
      const ns = pkg ? this.root.define(pkg) : this.root;
      ns.addJSON({ [name]: json });
      for (const o of within(ns.get(name)!)) {
        const parsed = parsedOptions[nameOf(o)];
        if (parsed !== undefined) o.parsedOptions = parsed as typeof o.parsedOptions;
      }
      stack.push(...deps);
    }
    // Resolves the references and the features (proto3's packed repeated scalars, field presence) of what was added, as the Root of every file has them; the parts resolved before are skipped.
    this.root.resolveAll();
  }
}

/** The Root of the JSON in `file` when it was written for `key`; undefined when there is none or it is of other protos. */
export function readRootJson(file: string, key: string): LazyRoot | undefined {
  let cache: RootJson;
  try {
    cache = JSON.parse(fs.readFileSync(file, 'utf8')) as RootJson;
  } catch {
    return undefined;
  }
  return cache.key === key ? new LazyRoot(cache) : undefined;
}
