import { LogLevel } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * How every function is bundled (esbuild, run by NodejsFunction): lib/flock-function.ts deploys with
 * these settings and bench/cold-start.ts measures bundles built with them.
 */
export const functionBundling = {
  minify: true,
  sourceMap: true,
  // Stack traces need file and line, not the sources: a far smaller map to parse at cold start.
  sourcesContent: false,
  target: 'node22',
  mainFields: ['module', 'main'],
  // esbuild prints every bundle's files and sizes; `npm run synth` is quiet unless something is wrong.
  logLevel: LogLevel.WARNING,
} as const;
