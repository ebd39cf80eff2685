/**
 * The import rules of the layout (docs/architecture.md): no cycles, the
 * compiler's stages only import earlier stages, the sidecars only the shared
 * contract and runtime. `npm run lint` checks them; tests (`*.test.ts`, test/,
 * golden/) may import across the layers to drive real parts.
 */
const STAGES = ['ir', 'kinds', 'load', 'validate', 'resolve', 'translate', 'verify', 'emit'];
/** What is built on the stages: none of them may be imported by a stage. */
const COMMANDS = '^compiler/(pipeline\\.ts|explain/|cli/)|^control-plane/';
const TESTS = '(\\.test\\.ts$|^test/|^golden/)';

const laterStages = STAGES.map((stage, i) => ({
  name: `stage-${stage}-imports-a-later-stage`,
  comment: `compiler/${stage} runs before ${STAGES.slice(i + 1).join(', ')} and the commands built on them; it must not import them`,
  severity: 'error',
  from: { path: `^compiler/${stage}/`, pathNot: TESTS },
  to: { path: [...STAGES.slice(i + 1).map((later) => `^compiler/${later}/`), COMMANDS] },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle: the files cannot be understood (or loaded) one after the other',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...laterStages,
    {
      name: 'compiler-base-imports-compiler',
      comment: 'diagnostics.ts and order.ts are below every stage',
      severity: 'error',
      from: { path: '^compiler/(diagnostics|order)\\.ts$' },
      to: { path: '^compiler/', pathNot: '^compiler/(diagnostics|order)\\.ts$' },
    },
    {
      name: 'envoy-semantics-imports-compiler',
      comment:
        "compiler/envoy models Envoy's own behaviour for explain and the control plane: it sits below both and reads only the contract",
      severity: 'error',
      from: { path: '^compiler/envoy/', pathNot: TESTS },
      to: { path: '^(compiler/(?!envoy/)|control-plane/|extauth-server/|graphql-server/|ratelimit-server/|harness/)' },
    },
    {
      name: 'sidecar-imports-beyond-contract',
      comment:
        'a sidecar stands on the shared contract and runtime only: never on the compiler, the control plane or another sidecar',
      severity: 'error',
      from: { path: '^(extauth-server|graphql-server|ratelimit-server)/', pathNot: TESTS },
      to: { path: '^(compiler|control-plane|harness|bench|scripts|test)/' },
    },
    {
      name: 'sidecar-imports-another-sidecar',
      comment: 'sidecars share code through contract/ and runtime/ only',
      severity: 'error',
      from: { path: '^(extauth-server|graphql-server|ratelimit-server)/', pathNot: TESTS },
      to: { path: '^(extauth-server|graphql-server|ratelimit-server)/', pathNot: '^$1/' },
    },
    {
      name: 'contract-imports-project',
      comment: 'the contract is what both sides agree on: it depends on nothing of either side',
      severity: 'error',
      from: { path: '^contract/', pathNot: TESTS },
      to: { path: '^(?!contract/)[^/]+/', pathNot: '^node_modules/' },
    },
    {
      name: 'runtime-imports-beyond-contract',
      comment: 'runtime helpers serve every binary: they read only the contract',
      severity: 'error',
      from: { path: '^runtime/', pathNot: TESTS },
      to: {
        path: '^(compiler|control-plane|extauth-server|graphql-server|ratelimit-server|harness|bench|scripts|test)/',
      },
    },
    {
      name: 'compiler-imports-control-plane',
      comment: 'the serving runtime is built on the compiler; only the CLI command that starts it imports it',
      severity: 'error',
      from: { path: '^compiler/', pathNot: `^compiler/cli/|${TESTS}` },
      to: { path: '^control-plane/' },
    },
    {
      name: 'product-imports-tests-or-harness',
      comment: 'product code never depends on tests, the harness of real parts, benchmarks or scripts',
      severity: 'error',
      from: {
        path: '^(compiler|control-plane|contract|runtime|extauth-server|graphql-server|ratelimit-server)/',
        pathNot: TESTS,
      },
      to: { path: '^(test|golden|harness|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|out|\\.tmp)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
