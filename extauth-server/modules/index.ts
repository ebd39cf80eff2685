/**
 * Every kind of config sluice-extauth implements, one module each (by the
 * field of sluice.extauth.v1.Config's `kind` oneof it reads). A module is
 * added here and nowhere else in the sidecar.
 */
import type { AuthModule } from '../module.js';
import { ldapModule } from './ldap.js';

export const MODULES: readonly AuthModule<any>[] = [ldapModule];
