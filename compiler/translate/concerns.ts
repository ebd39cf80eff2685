/** The HTTP filter concerns in chain order (jwt_authn -> rbac -> ext_authz), then the router. */
import type { HttpFilterConcern } from './concern.js';
import { graphqlConcern } from './filters/graphql.js';

export const CONCERNS: readonly HttpFilterConcern[] = [graphqlConcern];
