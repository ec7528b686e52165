import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { buildSync } from 'esbuild';
import { LogLevel } from 'aws-cdk-lib/aws-lambda-nodejs';
import { functionAliases } from './bundle-aliases';

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
  esbuildArgs: Object.fromEntries(
    Object.entries(functionAliases).map(([from, to]) => [`--alias:${from}`, to]),
  ),
} as const;

/**
 * esbuild's options for one function's bundle as NodejsFunction builds it with the settings above
 * (CommonJS for Node.js, every dependency bundled): what bench/cold-start.ts measures and the bundle
 * tests inspect.
 */
export function functionBuildOptions(entryPoint: string, outfile: string) {
  return {
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: functionBundling.target,
    minify: functionBundling.minify,
    sourcemap: functionBundling.sourceMap,
    sourcesContent: functionBundling.sourcesContent,
    mainFields: [...functionBundling.mainFields],
    alias: { ...functionAliases },
    logLevel: 'error',
  } satisfies BuildOptions;
}

/**
 * Bundles package `name` on its own into `packageDir` (`index.js`, every dependency inside, the
 * functions' settings), with a `package.json` naming it at `version`: what a function's asset carries
 * in its `node_modules/` for a package the function's bundle leaves out (`separatelyBundledPackages`,
 * lib/flock-function.ts), where the bundle's `import()` finds it. No source map: stack traces are
 * mapped through the function's own bundle's map only.
 */
export function bundlePackage(name: string, version: string, packageDir: string): void {
  mkdirSync(packageDir, { recursive: true });
  buildSync({
    stdin: {
      contents: `export * from ${JSON.stringify(name)};`,
      resolveDir: join(__dirname, '..'),
      loader: 'js',
    },
    outfile: join(packageDir, 'index.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: functionBundling.target,
    minify: functionBundling.minify,
    mainFields: [...functionBundling.mainFields],
    alias: { ...functionAliases },
    logLevel: 'error',
  });
  writeFileSync(join(packageDir, 'package.json'), `${JSON.stringify({ name, version, main: 'index.js' })}\n`);
}
