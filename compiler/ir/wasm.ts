/** Gloo's wasm filters (httpGateway.options.wasm) as Envoy's wasm filter takes them. */
import type { FilterStageName } from './ext-proc.js';

export interface WasmFilterIR {
  /** The filter's name in the chain: envoy.filters.http.wasm.<Gloo's name, or its position>. */
  filterName: string;
  /** Gloo's name: the plugin's. */
  pluginName: string;
  filePath: string;
  rootId?: string;
  /** An Any of StringValue, BytesValue or Struct, as written. */
  config?: { '@type': string; value?: unknown };
  failOpen: boolean;
  stage: { stage: FilterStageName; predicate: 'During' | 'Before' | 'After' };
}
