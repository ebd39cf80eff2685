/**
 * `npm run bench [-- NAME...]`: runs the named benchmarks (all but the
 * ten-minute stopped-client one when none is named). Each benchmark module exports `run(args)`, prints its own figures and
 * its ratio to a peer measured in the same run.
 */
const BENCHMARKS = [
  'compile',
  'xds',
  'scale',
  'extauth',
  'stitch',
  'graphql',
  'kube',
  'kube-bound',
  'ratelimit',
  'stopped-client',
] as const;
/** Run only when named: it takes ten minutes. */
const NAMED_ONLY = new Set(['stopped-client']);

async function main(): Promise<void> {
  const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = requested.length ? requested : BENCHMARKS.filter((b) => !NAMED_ONLY.has(b));
  for (const name of names) {
    if (!(BENCHMARKS as readonly string[]).includes(name)) {
      console.error(`unknown benchmark "${name}"; known: ${BENCHMARKS.join(', ')}`);
      process.exitCode = 2;
      return;
    }
    const mod = (await import(`./${name}.js`)) as { run(args: string[]): Promise<void> };
    console.log(`\n=== bench ${name} ===`);
    await mod.run(process.argv.slice(2));
  }
}

await main();
