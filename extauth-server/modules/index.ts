/**
 * Every kind of config sluice-extauth implements, one module each (by the
 * field of sluice.extauth.v1.Config's `kind` oneof it reads). A module is
 * added here and nowhere else in the sidecar.
 */
import type { AuthModule } from '../module.js';
import { apiKeyModule } from './api-key.js';
import { basicAuthModule } from './basic-auth.js';
import { jwtModule } from './jwt.js';
import { ldapModule } from './ldap.js';
import { oauth2Module } from './oauth2.js';
import { opaServerModule } from './opa-server.js';
import { passThroughModule } from './pass-through.js';

export const MODULES: readonly AuthModule<any>[] = [
  ldapModule,
  apiKeyModule,
  basicAuthModule,
  passThroughModule,
  opaServerModule,
  jwtModule,
  oauth2Module,
];
