import type { KnipConfig } from 'knip';

/**
 * knip (`npm run knip`, run by CI after lint) fails on unused files, exports and dependencies.
 * Entry points are the files something runs by path rather than imports: the CDK app and the CLIs,
 * the Lambda handlers (`lib/flock-function.ts` bundles `functions/<name>/handler.ts`), the local
 * server's worker thread, the benches and the meters they preload into function containers, and tests.
 */
const config: KnipConfig = {
  entry: [
    'bin/app.ts',
    'bin/local/function-worker.ts',
    'functions/*/handler.ts',
    // The lake's upkeep job, a second handler in the lake function's folder (lib/lake-compaction.ts).
    'functions/lake/compact-handler.ts',
    'bench/*.ts',
    'bench/meters/*.ts',
    // A microbench run by path (docs/consumer.md, "SDK clients per request"), not by `npm run bench`.
    'bench/support/sdk-calls.ts',
    'test/**/*.ts',
  ],
  project: ['bin/**/*.ts', 'lib/**/*.ts', 'functions/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
  // An export used only inside its own module is an implementation detail, not dead code.
  ignoreExportsUsedInFile: true,
};

export default config;
