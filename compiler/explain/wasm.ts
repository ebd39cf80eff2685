/**
 * A Gateway's wasm filter: explain cannot run the module, so it names the
 * plugin and rests the answer on the plugin letting the request through
 * (it may answer itself, or change the request, in ways only its code says).
 */
import type { Json } from '../translate/output.js';
import type { Step } from './model.js';

export const isWasmFilter = (name: string) =>
  name === 'envoy.filters.http.wasm' || name.startsWith('envoy.filters.http.wasm.');

export function evaluateWasm(name: string, filter: Json): { step: Step; assumption: { text: string; otherwise: [] } } {
  const config = (filter.config as Json | undefined) ?? {};
  const code = ((config.vm_config as Json | undefined)?.code as Json | undefined)?.local as Json | undefined;
  const plugin = String(config.name ?? name);
  const details = [
    `module ${String(code?.filename ?? '(not a local file)')}${config.root_id ? `, root id ${String(config.root_id)}` : ''}`,
    config.fail_open === true
      ? 'if its VM has failed, requests pass the filter (fail_open)'
      : 'if its VM has failed, requests are answered 503',
  ];
  return {
    step: {
      stage: 'wasm',
      summary: `the WebAssembly plugin ${plugin} runs; explain cannot run its code`,
      details,
      cite: 'docs/gateways.md § WebAssembly filters',
    },
    assumption: { text: `the wasm plugin ${plugin} lets the request through unchanged`, otherwise: [] },
  };
}
