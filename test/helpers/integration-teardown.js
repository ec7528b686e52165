// The integration project's globalTeardown: stops the shared servers integration-setup.js started.
'use strict';

module.exports = async function integrationTeardown() {
  await globalThis.flockSharedServers?.stop();
  globalThis.flockSharedServers = undefined;
};
