/** `sluice.extauth.v1.OpaServerAuthConfig` (contract/proto/sluice/extauth/v1/opa.proto). */
import type { OpaServerIR } from '../../ir/model.js';
import type { Json } from '../output.js';

export function compileOpaServer(o: OpaServerIR): Json {
  return { server_url: o.serverUrl, package: o.package, ...(o.ruleName ? { rule_name: o.ruleName } : {}) };
}
