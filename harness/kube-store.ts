/**
 * The storage of the API server double, as etcd and the API server's
 * registry behave: one resourceVersion counter for every kind, each write an
 * event in a history that compaction shortens (a watch or a continue token
 * older than the compacted revision gets 410 Gone), lists consistent at one
 * revision across pages, `metadata.generation` bumped when anything but
 * metadata and status changes, and the status subresource's split between
 * the main endpoint (status ignored) and `/status` (status only).
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from './kube-selectors.js';

export interface ResourceType {
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** Whether the kind has the status subresource (CRDs with `subresources.status`, most built-ins). */
  status?: boolean;
  /** Whether an update without metadata.resourceVersion is taken (most built-ins) or refused with 422 (custom resources). */
  unconditionalUpdate?: boolean;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  rv: number;
  typeKey: string;
  type: EventType;
  object: KubeObject;
  /** The object before this event (MODIFIED, DELETED): lists at an older revision undo events with it, selectors compare it. */
  previous?: KubeObject;
}

/** A failure the API server answers with a Status object. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string },
  ) {
    super(message);
  }
}

export const apiVersionOf = (t: ResourceType): string => (t.group ? `${t.group}/${t.version}` : t.version);
export const typeKeyOf = (t: ResourceType): string => `${t.group}/${t.plural}`;
const objectKey = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;
/** `services` or `virtualservices.gateway.solo.io`, as the API server's messages name a resource. */
const qualified = (t: ResourceType): string => (t.group ? `${t.plural}.${t.group}` : t.plural);

function withoutMetaAndStatus(object: KubeObject): string {
  const { metadata: _metadata, status: _status, ...rest } = object;
  return JSON.stringify(rest);
}

interface Kept {
  type: ResourceType;
  objects: Map<string, KubeObject>;
}

export class KubeStore {
  private revision = 0;
  private compacted = 0;
  private readonly kinds = new Map<string, Kept>();
  private history: StoreEvent[] = [];
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  /** The last sorted list a continue token named, per kind: the pages of one list read it once. */
  private readonly listCache = new Map<string, { rv: number; keys: string[]; objects: Map<string, KubeObject> }>();

  constructor(private readonly historyLimit: number) {}

  get resourceVersion(): number {
    return this.revision;
  }

  get compactedRevision(): number {
    return this.compacted;
  }

  addType(type: ResourceType): void {
    if (!this.kinds.has(typeKeyOf(type))) this.kinds.set(typeKeyOf(type), { type, objects: new Map() });
  }

  /** Removes a kind and its objects, as deleting its CRD does: lists and watches of it answer 404 from then on. */
  removeType(group: string, plural: string): void {
    this.kinds.delete(`${group}/${plural}`);
  }

  types(): ResourceType[] {
    return [...this.kinds.values()].map((k) => k.type);
  }

  typeOf(group: string, plural: string): ResourceType | undefined {
    return this.kinds.get(`${group}/${plural}`)?.type;
  }

  typeOfKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.types().find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets the history up to now (etcd's compaction): older watches and continue tokens get 410 Gone. */
  compact(): void {
    this.compacted = this.revision;
    this.history = [];
  }

  find(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.kept(type).objects.get(objectKey(type.namespaced ? namespace : undefined, name));
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const found = this.kept(type).objects.get(objectKey(namespace, name));
    if (!found) throw new ApiError(404, 'NotFound', `${qualified(type)} "${name}" not found`, this.details(type, name));
    return found;
  }

  /** The objects of a kind at the current revision, sorted by namespace and name as etcd keys are. */
  current(type: ResourceType): KubeObject[] {
    const objects = this.kept(type).objects;
    return [...objects.keys()].sort().map((k) => objects.get(k)!);
  }

  /** The sorted keys and objects of a kind at revision `rv` (the current objects with later events undone); 410 once compacted. */
  at(type: ResourceType, rv: number): { keys: string[]; objects: Map<string, KubeObject> } {
    const typeKey = typeKeyOf(type);
    const cached = this.listCache.get(typeKey);
    if (cached && cached.rv === rv && rv >= this.compacted) return cached;
    if (rv < this.compacted) {
      throw new ApiError(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
    }
    const objects = new Map(this.kept(type).objects);
    for (let i = this.history.length - 1; i >= 0 && this.history[i].rv > rv; i--) {
      const event = this.history[i];
      if (event.typeKey !== typeKey) continue;
      const key = objectKey(event.object.metadata.namespace, event.object.metadata.name);
      if (event.type === 'ADDED') objects.delete(key);
      else objects.set(key, event.previous!);
    }
    const snapshot = { rv, keys: [...objects.keys()].sort(), objects };
    this.listCache.set(typeKey, snapshot);
    return snapshot;
  }

  /** The events of a kind after `rv`, or 410 Gone when the history no longer reaches back to it. */
  eventsAfter(type: ResourceType, rv: number): StoreEvent[] {
    if (rv < this.compacted) {
      throw new ApiError(410, 'Expired', `too old resource version: ${rv} (${this.compacted + 1})`);
    }
    const typeKey = typeKeyOf(type);
    return this.history.filter((e) => e.rv > rv && e.typeKey === typeKey);
  }

  create(type: ResourceType, object: KubeObject, { keepStatus = false } = {}): KubeObject {
    const { namespace, name } = object.metadata;
    if (!name)
      throw new ApiError(422, 'Invalid', `${type.kind} "" is invalid: metadata.name: Required value: name is required`);
    const key = objectKey(type.namespaced ? namespace : undefined, name);
    if (this.kept(type).objects.has(key)) {
      throw new ApiError(409, 'AlreadyExists', `${qualified(type)} "${name}" already exists`, this.details(type, name));
    }
    const created: KubeObject = structuredClone(object);
    // A custom resource's status is not set on create when it has the status subresource.
    if (type.status && !keepStatus) delete created.status;
    created.apiVersion = apiVersionOf(type);
    created.kind = type.kind;
    created.metadata = {
      ...created.metadata,
      ...(type.namespaced ? { namespace: namespace ?? 'default' } : { namespace: undefined }),
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    if (!type.namespaced) delete created.metadata.namespace;
    return this.write(type, 'ADDED', created);
  }

  /**
   * An update: `body` replaces the object (PUT), or only its status with
   * `subresource: 'status'`. A stale metadata.resourceVersion is 409 Conflict;
   * none is 422 for kinds without unconditional updates; an update that
   * changes nothing writes nothing, as the API server skips no-op writes.
   */
  update(type: ResourceType, body: KubeObject, { subresource, keepStatus = false }: UpdateOptions = {}): KubeObject {
    const { namespace, name } = body.metadata;
    const current = this.get(type, type.namespaced ? namespace : undefined, name);
    const wanted = body.metadata.resourceVersion;
    if (wanted !== undefined && wanted !== '' && wanted !== current.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualified(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        this.details(type, name),
      );
    }
    if ((wanted === undefined || wanted === '') && !type.unconditionalUpdate && !keepStatus) {
      throw new ApiError(
        422,
        'Invalid',
        `${type.kind}.${type.group} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
      );
    }
    let next: KubeObject;
    if (subresource === 'status') {
      next = { ...structuredClone(current), status: structuredClone(body.status) };
      if (body.status === undefined) delete next.status;
    } else {
      next = structuredClone(body);
      next.metadata = {
        ...next.metadata,
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
      };
      if (type.status && !keepStatus) {
        if (current.status === undefined) delete next.status;
        else next.status = structuredClone(current.status);
      }
    }
    next.apiVersion = apiVersionOf(type);
    next.kind = type.kind;
    next.metadata.generation =
      withoutMetaAndStatus(next) === withoutMetaAndStatus(current)
        ? current.metadata.generation
        : (current.metadata.generation ?? 0) + 1;
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    if (JSON.stringify(next) === JSON.stringify(current)) return current;
    return this.write(type, 'MODIFIED', next, current);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const current = this.get(type, type.namespaced ? namespace : undefined, name);
    return this.write(type, 'DELETED', structuredClone(current), current);
  }

  private write(type: ResourceType, eventType: EventType, object: KubeObject, previous?: KubeObject): KubeObject {
    this.revision++;
    object.metadata.resourceVersion = String(this.revision);
    const objects = this.kept(type).objects;
    const key = objectKey(object.metadata.namespace, object.metadata.name);
    if (eventType === 'DELETED') objects.delete(key);
    else objects.set(key, object);
    const event: StoreEvent = { rv: this.revision, typeKey: typeKeyOf(type), type: eventType, object, previous };
    this.history.push(event);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compacted = dropped[dropped.length - 1].rv;
    }
    for (const listener of this.listeners) listener(event);
    return object;
  }

  private kept(type: ResourceType): Kept {
    const kept = this.kinds.get(typeKeyOf(type));
    if (!kept) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    return kept;
  }

  private details(type: ResourceType, name: string) {
    return { name, group: type.group, kind: type.plural };
  }
}

export interface UpdateOptions {
  subresource?: 'status';
  /** A direct write of the tests, as a controller with full access would make it: status kept as given, no precondition. */
  keepStatus?: boolean;
}
