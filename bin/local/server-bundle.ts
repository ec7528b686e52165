import { build, version as esbuildVersion } from 'esbuild';
import type { Plugin } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { cachedBuild } from './build-cache';
import type { CacheOptions } from './build-cache';

/**
 * The local server (`bin/local.ts` and the modules it imports) prebuilt into one CommonJS file, for
 * the integration tests, which start a server per file: node runs it without compiling TypeScript,
 * about half the CPU of a start through tsx. Packages stay outside (required from node_modules as
 * `npm start` requires them), so the server loads the same package instances it does from sources.
 * Kept and rebuilt like the containers' bundles (build-cache.ts); `npm start` still runs the sources.
 */

const root = resolve(__dirname, '../..');

/** Bumped when the bundle's options change: a new key, a new build. */
const layoutVersion = 1;

/**
 * `__dirname` in the server's own sources keeps naming the source's folder once bundled (the bundle
 * lives elsewhere): they locate the repository, the container runtime and the functions with it.
 */
const sourceDirname: Plugin = {
  name: 'source-dirname',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      return { contents: source.replace(/\b__dirname\b/g, JSON.stringify(dirname(path))), loader: 'ts' };
    });
  },
};

/**
 * The server's bundle: run it as `node --enable-source-maps <file> [options of bin/local.ts]`.
 * @public built by the integration tests' globalSetup (test/helpers/build-container-bundles.js, plain
 * JavaScript, whose require knip does not follow)
 */
export async function localServerBundle(options: CacheOptions = {}): Promise<string> {
  const entry = join(root, 'bin/local.ts');
  const buildDir = await cachedBuild(
    {
      key: { layoutVersion, esbuildVersion, server: entry },
      outputs: ['local.js'],
      build: async (into) => {
        const { metafile } = await build({
          absWorkingDir: root,
          entryPoints: [{ in: entry, out: 'local' }],
          outdir: into,
          bundle: true,
          platform: 'node',
          format: 'cjs',
          target: 'node20',
          packages: 'external',
          plugins: [sourceDirname],
          // Stack traces name the TypeScript file and line (node's --enable-source-maps).
          sourcemap: true,
          sourcesContent: false,
          metafile: true,
          logLevel: 'error',
        });
        return metafile;
      },
    },
    options,
  );
  return join(buildDir, 'local.js');
}
