/**
 * The glibc malloc setting `sluice serve` runs with (the Docker image, `npm
 * start` and the benchmarks set it; set it yourself when you start serve by
 * hand on Linux). Each xDS response is framed by grpc-js in a buffer of its
 * own, megabytes for a large first sync. glibc serves such buffers with mmap
 * and returns them on free, but its default raises the mmap threshold to the
 * size of the largest buffer freed (up to 32 MiB); from then on they come from
 * the heap, which keeps the pages. A fixed threshold keeps every large buffer
 * an mmap: RSS after 500 clients' first sync of 10,000 virtual hosts fell from
 * about 650 to 470 MiB (docs/xds.md).
 */
const SERVE_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' } as const;

/** This process's environment with the malloc setting added for a server it starts; a value already set wins. */
export function serveEnvironment(): NodeJS.ProcessEnv {
  return { ...SERVE_MALLOC_ENV, ...process.env };
}
