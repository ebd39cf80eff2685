/**
 * `npm run bench [-- NAME...]`: runs the named benchmarks (all when none is
 * named). Each benchmark module exports `run(args)`, prints its own figures and
 * its ratio to a peer measured in the same run.
 */
const BENCHMARKS = ['compile', 'xds', 'scale', 'extauth', 'stitch', 'graphql'] as const;

async function main(): Promise<void> {
  const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = requested.length ? requested : [...BENCHMARKS];
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
