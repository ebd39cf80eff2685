/** ESM + @swc/jest: run through `npm test` (node --experimental-vm-modules). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // Many tests run the binaries, and each start costs a few seconds of CPU (Envoy's protos and the schemas are
  // loaded): on two cores shared by two suites and more, a test of a few runs took over 30 s.
  testTimeout: 120000,
  // One worker per core, where jest's default leaves one core free: most test files wait on servers and child
  // processes (slapd, Redis, Chromium, the binaries), so two files at a time on two cores take about half the time.
  maxWorkers: '100%',
  // Fails a file whose loggers made a line with a key written twice (harness/log-check.ts).
  setupFilesAfterEnv: ['<rootDir>/test/log-check.ts'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
};
