/** Emit: the static Envoy bootstrap that `envoy -c` loads. Pure. */
import type { CompileOptions, CompiledOutput, Json } from '../translate/output.js';

export function staticBootstrap(output: CompiledOutput, options: CompileOptions): Json {
  return {
    // Loopback only: the admin interface can change Envoy's state.
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: options.adminPort } } },
    static_resources: { listeners: output.listeners, clusters: output.clusters },
  };
}
