// Part of the integration project's globalSetup (integration-setup.js): builds the local server
// (bin/local/server-bundle.ts) and its function bundles (bin/local/container-bundles.ts) once, before any test file starts a server (a
// no-op while the cached builds are current), so that three workers' first servers do not each
// build them at once. The server bundle's path reaches the test files (test/helpers/local-server.ts)
// in the environment, which jest's workers inherit. Plain JavaScript: jest does not transform a
// globalSetup; tsx's require hook loads the TypeScript modules, registered only meanwhile (tsx's
// namespaced `require` would also namespace esbuild's path to its binary).
'use strict';
const { join } = require('node:path');
const process = require('node:process');
const { register } = require('tsx/cjs/api');

/**
 * The `functionPreload` sets the integration tests start servers with, each a build of its own (the
 * preloads are bundled with every handler). One missing here still works: its server builds it.
 */
const preloadSets = [
  [],
  ['hold-exports.ts'],
  ['partial-queue-failure.ts'],
  ['lake-faults.ts'],
  ['consumer-spans.ts'],
  ['hold-query-runs.ts'],
].map((files) => files.map((file) => join(__filename, '../../fixtures', file)));

module.exports = async function buildLocalBundles() {
  const unregister = register();
  let bundles;
  let server;
  try {
    bundles = require('../../bin/local/container-bundles.ts');
    server = require('../../bin/local/server-bundle.ts');
  } finally {
    unregister();
  }
  const [serverBundle] = await Promise.all([
    // Marked as this run's: a rebuild by another run meanwhile leaves it in place until this one ends.
    server.localServerBundle({ markUsed: true }),
    ...preloadSets.map((preload) => bundles.localContainerBundles(preload)),
  ]);
  // Read by test/helpers/local-server.ts.
  process.env.FLOCK_TEST_SERVER_BUNDLE = serverBundle;
};
