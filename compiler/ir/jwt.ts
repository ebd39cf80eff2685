/**
 * Key under the jwt_authn filter's dynamic metadata namespace where the
 * verified payload is written (`payload_in_metadata`); RBAC matches claims
 * there. Same key as Gloo's jwt plugin. In the IR because resolve checks
 * that no other metadata key of a provider takes it.
 */
export const JWT_PAYLOAD_METADATA_KEY = 'principal';

/** The jwt_authn filter's name, its dynamic metadata's namespace (a tracing tag reads the payload there). */
export const JWT_FILTER_NAME = 'envoy.filters.http.jwt_authn';
