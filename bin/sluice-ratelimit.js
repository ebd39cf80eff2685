#!/usr/bin/env node
// Runs the compiled rate limit sidecar; `npm install` builds it (the `prepare` script).
import('../dist/ratelimit-server/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/ratelimit-server/main.js')) {
    console.error('sluice-ratelimit: not built yet; run `npm install` (or `npm run build`) in the project first');
    process.exit(2);
  }
  throw err;
});
