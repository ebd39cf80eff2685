/**
 * A Gateway's wasm filter (Gloo's httpGateway.options.wasm): Envoy's
 * envoy.filters.http.wasm running the module read from a file on the proxy
 * in the V8 runtime, the plugin's name, root id and configuration as
 * written. No vm_id: filters with the same module share a VM, as Envoy
 * does with a blank one.
 */
import type { WasmFilterIR } from '../../ir/wasm.js';
import type { StagedFilter } from '../ext-proc-stages.js';
import type { Json } from '../output.js';

export const WASM_FILTER_PREFIX = 'envoy.filters.http.wasm';
const WASM_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm';
const V8 = 'envoy.wasm.runtime.v8';

export function wasmFilter(w: WasmFilterIR): Json {
  return {
    name: w.filterName,
    typed_config: {
      '@type': WASM_TYPE,
      config: {
        name: w.pluginName,
        ...(w.rootId ? { root_id: w.rootId } : {}),
        vm_config: { runtime: V8, code: { local: { filename: w.filePath } } },
        ...(w.config ? { configuration: w.config } : {}),
        ...(w.failOpen ? { fail_open: true } : {}),
      },
    },
  };
}

/** The Gateway's wasm filters, to be placed by their stage. */
export function wasmStaged(filters: readonly WasmFilterIR[] | undefined): StagedFilter[] {
  return (filters ?? []).map((w) => ({ json: wasmFilter(w), stage: w.stage }));
}
