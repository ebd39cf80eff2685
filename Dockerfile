# One image for the control plane (`sluice`) and the sidecars (`sluice-extauth`, `sluice-graphql`, `sluice-ratelimit`):
# the default (last) stage. The `examples` stage runs the example upstreams of docker-compose.yml.
FROM node:20.20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY compiler ./compiler
COPY control-plane ./control-plane
COPY contract ./contract
COPY runtime ./runtime
COPY extauth-server ./extauth-server
COPY graphql-server ./graphql-server
COPY ratelimit-server ./ratelimit-server
COPY bench ./bench
# The example upstreams (examples/services) that docker-compose.yml runs, and the resources sluice serves.
COPY examples ./examples
# The real parts the benchmarks start on loopback (slapd, upstreams, xDS clients); test/ stays out of the image.
COPY harness ./harness
# The build itself (scripts/build.mjs, which the prepare script runs, and what it precomputes).
COPY scripts ./scripts
# `npm ci` installs the committed lock file and builds dist/ (the prepare script).
RUN npm ci --no-audit --no-fund && npm cache clean --force

# The example services keep the dev dependencies: their gRPC reflection is @grpc/reflection.
FROM build AS examples
USER node
ENTRYPOINT ["node"]

# The control plane and the sidecars: production dependencies only.
FROM build AS sluice
RUN npm prune --omit=dev && npm cache clean --force
# A fixed glibc mmap threshold: large xDS response buffers go back to the system when freed
# instead of staying in the heap (control-plane/memory.ts says why).
ENV MALLOC_MMAP_THRESHOLD_=131072
USER node
ENTRYPOINT ["node"]
