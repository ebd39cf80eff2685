/** Building blocks shared by the per-kind JSON Schemas. Objects are closed: a typo is an error. */
export type Schema = Record<string, unknown>;

export function object(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}

export function mapOf(values: Schema, keys: Schema = { type: 'string', minLength: 1 }): Schema {
  return { type: 'object', propertyNames: keys, additionalProperties: values };
}

export const string: Schema = { type: 'string' };
export const nonEmptyString: Schema = { type: 'string', minLength: 1 };
export const boolean: Schema = { type: 'boolean' };
export const port: Schema = { type: 'integer', minimum: 1, maximum: 65535 };
export const stringMap: Schema = mapOf({ type: 'string' });

/** Kubernetes object names (RFC 1123 subdomain) and namespaces (RFC 1123 label). */
export const resourceName: Schema = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' };
export const namespaceName: Schema = { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };

/** `{name, namespace}`; namespace defaults to the referring resource's own. */
export const resourceRef: Schema = object({ name: resourceName, namespace: namespaceName }, ['name']);

/** Standard Kubernetes metadata: what Sluice reads is checked, the rest is accepted and ignored. */
export const metadata: Schema = object(
  {
    name: resourceName,
    namespace: namespaceName,
    labels: stringMap,
    annotations: stringMap,
    uid: {},
    resourceVersion: {},
    generation: {},
    creationTimestamp: {},
    ownerReferences: {},
    managedFields: {},
  },
  ['name'],
);

/** The envelope every kind shares; `status` is accepted and ignored. */
export function resource(apiVersion: string, kind: string, spec: Schema, specRequired = true): Schema {
  return object(
    {
      apiVersion: { const: apiVersion },
      kind: { const: kind },
      metadata,
      spec,
      status: {},
    },
    ['apiVersion', 'kind', 'metadata', ...(specRequired ? ['spec'] : [])],
  );
}

/** Exactly one of the named properties must be present. */
export function exactlyOne(...names: string[]): Schema {
  return { oneOf: names.map((n) => ({ required: [n] })) };
}
