// The part of oidc-provider 8's API the tests use (8.x ships no types; @types/oidc-provider follows 9.x).
declare module 'oidc-provider' {
  import type { Server } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, listening: () => void): Server;
  }
}
