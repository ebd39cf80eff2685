#!/usr/bin/env node
// Runs the compiled LDAP ext_authz sidecar; `npm install` builds it (the `prepare` script).
import('../dist/extauth-server/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/extauth-server/main.js')) {
    console.error('sluice-extauth: not built yet; run `npm install` (or `npm run build`) in the project first');
    process.exit(2);
  }
  throw err;
});
