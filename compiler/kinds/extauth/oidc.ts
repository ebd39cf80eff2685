import { refused } from '../gloo.js';

export const oidcAuthorizationCode = refused('not implemented yet');
