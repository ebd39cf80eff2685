/**
 * Key under the jwt_authn filter's dynamic metadata namespace where the
 * verified payload is written (`payload_in_metadata`); RBAC matches claims
 * there. Same key as Gloo's jwt plugin. In the IR because resolve checks
 * that no other metadata key of a provider takes it.
 */
export const JWT_PAYLOAD_METADATA_KEY = 'principal';
