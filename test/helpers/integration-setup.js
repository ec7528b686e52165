// The integration project's globalSetup: builds the local server's bundles (build-container-bundles.js),
// then listens for the test files' requests for their worker's shared server (shared-servers.ts),
// which integration-teardown.js stops when the run ends. Both addresses reach the test files in the
// environment, which jest's workers inherit. Plain JavaScript, as build-container-bundles.js is.
'use strict';
const process = require('node:process');
const { register } = require('tsx/cjs/api');
const buildLocalBundles = require('./build-container-bundles');

module.exports = async function integrationSetup() {
  await buildLocalBundles();
  const unregister = register();
  let sharedServers;
  try {
    sharedServers = require('./shared-servers.ts');
  } finally {
    unregister();
  }
  const shared = await sharedServers.SharedServers.listen();
  // Read by test/helpers/local-server.ts; the instance by integration-teardown.js (jest runs both
  // hooks in its own process, where globalThis is the same).
  process.env.FLOCK_TEST_SHARED_SERVERS = shared.url;
  globalThis.flockSharedServers = shared;
};
