// Three projects, each runnable alone: `npm run test:unit` (no server), `test:integration` (the
// real local server: one per jest worker shared by most files, its own for a file that needs other
// options) and `test:cdk` (assertions on the synthesized stacks);
// `npm test` runs all three.
// test/helpers/esbuild-transformer.js compiles TypeScript (and the ESM-only @middy/* and uuid
// packages) to CommonJS for jest, without type checking: `npm run typecheck` does that.
const tsJest = {
  tsconfig: {
    module: 'commonjs',
    moduleResolution: 'node',
    target: 'es2022',
    allowJs: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    isolatedModules: true,
  },
};

/** @type {(name: string) => import('jest').Config} */
const project = (name) => ({
  displayName: name,
  testEnvironment: 'node',
  roots: [`<rootDir>/test/${name}`],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j|mj)s$': ['<rootDir>/test/helpers/esbuild-transformer.js', { tsJest }] },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|uuid)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  setupFiles: ['<rootDir>/test/helpers/setup-env.ts'],
  ...(name === 'integration'
    ? {
        globalSetup: '<rootDir>/test/helpers/integration-setup.js',
        globalTeardown: '<rootDir>/test/helpers/integration-teardown.js',
      }
    : {}),
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [project('unit'), project('integration'), project('cdk')],
  testTimeout: 60000,
  // Jest's default is one worker less than the cores: a single one on a 2-core machine. An
  // integration file spends most of its time waiting for the local server (batching windows,
  // retries), so four workers overlap those waits while the unit and CDK files use both cores (with
  // three, the 2-core machine had 1.35 cores busy on average over the whole run).
  maxWorkers: 4,
  // The integration files first, then the CDK files, then the unit files, where jest has no timings.
  testSequencer: '<rootDir>/test/helpers/test-sequencer.js',
};
