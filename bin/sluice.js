#!/usr/bin/env node
// Runs the compiled CLI; `npm install` builds it (the `prepare` script).
import('../dist/compiler/cli/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/compiler/cli/main.js')) {
    console.error('sluice: not built yet; run `npm install` (or `npm run build`) in the project first');
    process.exit(2);
  }
  throw err;
});
