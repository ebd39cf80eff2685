export type AccessTokenIR = never;
