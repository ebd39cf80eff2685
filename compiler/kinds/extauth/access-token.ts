import { refused } from '../gloo.js';

export const accessTokenValidation = refused('not implemented yet');
