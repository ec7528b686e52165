// A jest transformer that compiles TypeScript (and the ESM-only packages jest.config.js lets through)
// to CommonJS with esbuild: one file at a time, no type checking (`npm run typecheck` does that),
// results cached by jest like any transformer's. It is many times faster than ts-jest, which
// remains for the files that call `jest.mock()`: esbuild does not hoist it above the imports.
'use strict';
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const esbuild = require('esbuild');

const own = readFileSync(__filename);
const needsTsJest = (source) => /\bjest\.mock\(/.test(source);

/**
 * esbuild's CommonJS helpers, made to behave as tsc's (esModuleInterop), which the tests were written
 * against: a module's exports can be replaced by `jest.spyOn` (configurable, where esbuild's getters
 * are not), and `import * as x` of a compiled ES module is that module's own exports object, so a
 * spy on it is seen by every importer.
 */
const helperPatches = [
  [
    '__defProp(target, name, { get: all[name], enumerable: true });',
    '__defProp(target, name, { get: all[name], enumerable: true, configurable: true });',
  ],
  [
    'enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });',
    'enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable, configurable: true });',
  ],
  [
    'var __toESM = (mod, isNodeMode, target) => (',
    'var __toESM = (mod, isNodeMode, target) => !isNodeMode && mod?.__esModule ? mod : (',
  ],
];

function patchHelpers(code) {
  for (const [from, to] of helperPatches) code = code.replace(from, to);
  return code;
}

/** @param {{ tsJest?: Record<string, unknown> }} options the ts-jest options for the files it compiles */
function createTransformer(options = {}) {
  let tsJest;
  const fallback = () => (tsJest ??= require('ts-jest').default.createTransformer(options.tsJest));
  return {
    canInstrument: false,
    getCacheKey(source, path, transformOptions) {
      if (needsTsJest(source)) return fallback().getCacheKey(source, path, transformOptions);
      return createHash('sha256')
        .update(own)
        .update(esbuild.version)
        .update(transformOptions.configString)
        .update(path)
        .update(source)
        .digest('hex');
    },
    process(source, path, transformOptions) {
      if (needsTsJest(source)) return fallback().process(source, path, transformOptions);
      const { code, map } = esbuild.transformSync(source, {
        loader: path.endsWith('.ts') ? 'ts' : 'js',
        format: 'cjs',
        target: 'es2022',
        // import() becomes a require(), as with tsc's CommonJS output: jest's module registry runs
        // a real import() only with --experimental-vm-modules.
        supported: { 'dynamic-import': false },
        // As tsc with target ES2022: class fields are defined, not assigned.
        tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
        sourcemap: 'external',
        sourcefile: path,
      });
      return { code: patchHelpers(code), map };
    },
  };
}

module.exports = { createTransformer };
