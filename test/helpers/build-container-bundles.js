// The integration project's globalSetup: builds the local server's function bundles once, before any
// test file starts a server (bin/local/container-bundles.ts; a no-op while the cached build is
// current), so that three workers' first servers do not each build them at once. Plain JavaScript:
// jest does not transform a globalSetup; tsx's require hook loads the TypeScript module, registered
// only meanwhile (tsx's namespaced `require` would also namespace esbuild's path to its binary).
'use strict';
const { join } = require('node:path');
const { register } = require('tsx/cjs/api');

/**
 * The `functionPreload` sets the integration tests start servers with, each a build of its own (the
 * preloads are bundled with every handler). One missing here still works: its server builds it.
 */
const preloadSets = [[], ['hold-exports.ts'], ['partial-queue-failure.ts'], ['lake-faults.ts']].map((files) =>
  files.map((file) => join(__filename, '../../fixtures', file)),
);

module.exports = async function buildContainerBundles() {
  const unregister = register();
  let bundles;
  try {
    bundles = require('../../bin/local/container-bundles.ts');
  } finally {
    unregister();
  }
  await Promise.all(preloadSets.map((preload) => bundles.localContainerBundles(preload)));
};
