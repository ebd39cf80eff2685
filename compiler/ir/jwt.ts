/** The jwt_authn filter's name, its dynamic metadata's namespace (a tracing tag reads the payloads there). */
export const JWT_FILTER_NAME = 'envoy.filters.http.jwt_authn';
