# One image for the control plane (`sluice`) and the sidecars (`sluice-extauth`, `sluice-graphql`).
FROM node:20.20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY compiler ./compiler
COPY protos ./protos
COPY extauth-server ./extauth-server
COPY graphql-server ./graphql-server
COPY bench ./bench
# The example upstreams (examples/services) that docker-compose.yml runs, and the resources sluice serves.
COPY examples ./examples
# The benchmarks reuse the test fixtures (slapd), so the build needs them.
COPY test ./test
# `npm ci` installs the committed lock file and builds dist/ (the prepare script); dev dependencies go afterwards.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev && npm cache clean --force
USER node
ENTRYPOINT ["node"]
