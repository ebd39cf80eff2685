export type OidcIR = Record<string, never>;
