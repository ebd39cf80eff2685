#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what the tests need
# (Debian's slapd and ldap-utils for the LDAP tests, redis-server for the OIDC
# session tests, chromium for the browser tests, openssl for the basicAuth tests, the npm dependencies),
# type-checks, then runs every test. This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/sbin/slapd ] || ! command -v ldapadd >/dev/null 2>&1; then
  echo "== installing slapd and ldap-utils (needed by the LDAP tests)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq slapd ldap-utils >/dev/null
fi

# redis-server keeps the OIDC sessions of the Redis session tests (started by the tests like slapd).
if [ ! -x /usr/bin/redis-server ]; then
  echo "== installing redis-server (needed by the OIDC Redis session tests)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null
fi

# Debian's chromium is the real browser of the page tests (harness/chromium.ts, driven by playwright-core).
if [ ! -x /usr/bin/chromium ]; then
  echo "== installing chromium (needed by the browser tests)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
fi

# openssl makes the password hashes the basicAuth tests check against (openssl passwd -apr1, dgst -sha1).
if ! command -v openssl >/dev/null 2>&1; then
  echo "== installing openssl (needed by the basicAuth tests)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openssl >/dev/null
fi

# Debian's docker-compose (Python, a few MB without its recommended Docker engine) lets the
# deploy test check docker-compose.yml with `docker-compose config`; skipped where apt has none.
if ! command -v docker-compose >/dev/null 2>&1 && apt-cache policy docker-compose 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  echo "== installing docker-compose (checks docker-compose.yml)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker-compose >/dev/null || echo "(docker-compose not installed: the compose check will skip)"
fi

echo "== installing npm dependencies (npm ci: exactly the committed lock file)"
# The lock file holds every platform's optional packages (scripts/lock-all-platforms.mjs),
# so `npm ci` works on any machine; it fails here if the lock and package.json disagree.
npm ci --no-audit --no-fund

echo "== type-checking"
npm run --silent typecheck

echo "== checking the import rules (.dependency-cruiser.cjs)"
npm run --silent lint

echo "== checking the format (Prettier; npm run format rewrites it)"
npm run --silent format:check

echo "== running the tests"
mkdir -p .tmp
status=0
# --forceExit: a setup that failed half-way (a hook past its time limit) can leave a server it
# started after the failure running; the run must still end and report instead of waiting on it.
npm test -- --ci --forceExit --json --outputFile=.tmp/jest-results.json || status=$?
# One plain closing line that CI reads: "tests: N passed, N failed, N skipped".
node -e '
const r = require("./.tmp/jest-results.json");
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
exit "$status"
