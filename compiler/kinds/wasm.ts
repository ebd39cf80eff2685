/**
 * Gloo's wasm.proto (httpGateway.options.wasm): WebAssembly filters, built
 * as upstream Envoy's envoy.filters.http.wasm with the module read from a
 * file on the proxy. Gloo's `image` (an OCI image its own control plane
 * pulls and serves) is refused.
 */
import { Type, type Static } from '@sinclair/typebox';
import { filterStage } from './ext-proc.js';
import { note, refused } from './gloo.js';
import { anyValue, boolean, lineOrEmpty, object, protoEnum, singleLine } from './schema.js';

const wasmFilter = object(
  {
    image: refused(
      "Gloo's control plane pulls the OCI image and serves the module to its Envoy itself; upstream Envoy reads a module from a file or an HTTP URL, not from an image registry",
      'copy the .wasm file onto the proxy (an init container, a volume) and set filePath',
    ),
    filePath: note(
      singleLine,
      'required: the .wasm module, a path on the proxy (Envoy reads it when it loads the filter)',
    ),
    config: note(
      object({ '@type': note(singleLine, 'a type URL'), value: anyValue }, ['@type']),
      "the plugin's configuration (proxy_on_configuration), as Envoy passes it: a StringValue's or BytesValue's bytes, a Struct as JSON, another type serialized",
    ),
    filterStage: note(
      filterStage,
      'where the filter sits among the others, as Gloo orders its stages (unset: FaultStage)',
    ),
    name: note(
      singleLine,
      "the plugin's name (its logs and the filter's name, envoy.filters.http.wasm.<name>); unset: its position",
    ),
    rootId: note(lineOrEmpty, "the plugin's root context id, as its module names it"),
    vmType: note(
      protoEnum(['V8', 'WAVM']),
      'V8 (unset); WAVM is an error: upstream Envoy no longer builds that runtime',
    ),
    failOpen: note(boolean, 'true: requests pass the filter when its VM has failed (unset: they are answered 503)'),
  },
  ['filePath'],
);

export const wasmOptions = object({ filters: Type.Array(wasmFilter, { minItems: 1 }) }, ['filters']);

export type WasmOptionsSpec = Static<typeof wasmOptions>;
