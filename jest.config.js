// ts-jest compiles TypeScript (and the ESM-only @middy/* packages) to CommonJS for jest, without
// type checking (isolatedModules in its tsconfig): `npm run typecheck` does that. jest 29 and ts-jest need no
// platform-specific binaries, so `npm ci` works from any npm registry mirror.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': [
      'ts-jest',
      {
        tsconfig: {
          module: 'commonjs',
          moduleResolution: 'node',
          target: 'es2022',
          allowJs: true,
          esModuleInterop: true,
          resolveJsonModule: true,
          isolatedModules: true,
        },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|uuid)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  setupFiles: ['<rootDir>/test/helpers/setup-env.ts'],
  testTimeout: 60000,
};
