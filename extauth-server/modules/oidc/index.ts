import { ConfigError } from '../../config-fields.js';
import { stateless, type AuthModule } from '../../module.js';

export const oidcModule: AuthModule<never> = {
  field: 'oidc_authorization_code',
  parse: (_raw, where) => {
    throw new ConfigError(`${where}: not implemented yet`);
  },
  create: () =>
    stateless(() => () => {
      throw new Error('not implemented yet');
    }),
};
