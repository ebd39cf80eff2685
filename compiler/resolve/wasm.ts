/** httpGateway.options.wasm: each filter's module file, configuration and place, with the checks the schema cannot make. */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { WasmFilterIR } from '../ir/wasm.js';
import type { WasmOptionsSpec } from '../kinds/wasm.js';

export function gatewayWasm(
  spec: WasmOptionsSpec | undefined,
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): WasmFilterIR[] {
  const out: WasmFilterIR[] = [];
  spec?.filters.forEach((f, i) => {
    const at = [...path, 'filters', i];
    if (f.vmType === 'WAVM') {
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...at, 'vmType'],
          'upstream Envoy no longer builds the WAVM runtime: a filter asking for it is refused',
          "remove vmType (V8, the runtime of Envoy's release builds)",
        ),
      );
      return;
    }
    const pluginName = f.name ?? String(i);
    const filterName = `envoy.filters.http.wasm.${pluginName}`;
    const clash = out.find((o) => o.filterName === filterName);
    if (clash) {
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...at, 'name'],
          `another wasm filter of this Gateway is named ${JSON.stringify(pluginName)}`,
          'give each filter its own name: it names the filter in the chain and its statistics',
        ),
      );
      return;
    }
    out.push({
      filterName,
      pluginName,
      filePath: f.filePath,
      ...(f.rootId ? { rootId: f.rootId } : {}),
      ...(f.config ? { config: f.config } : {}),
      failOpen: f.failOpen ?? false,
      stage: { stage: f.filterStage?.stage ?? 'FaultStage', predicate: f.filterStage?.predicate ?? 'During' },
    });
  });
  return out;
}
