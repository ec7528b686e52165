// The order jest starts the test files in (jest.config.js's testSequencer). Jest runs first the files
// that failed last time, then the longest by the timings its cache keeps (`cacheDirectory`), so the
// longest files do not end the run alone on a worker. A file it has no timing of (every file on a
// fresh clone, as CI runs the suite) it sorts by size, which puts large unit files before the
// integration files: these then end the run, waiting for their servers while the other workers have
// nothing left to run. This sequencer gives such a file its project's typical duration instead, so an
// integration file starts before a CDK file, and a CDK file before a unit file.
'use strict';
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * What a file of each project typically takes (ms, measured on the 2-core machine), for a file jest
 * has no timing of; a unit file also by its size, as jest would.
 */
const typicalMs = { integration: 20_000, cdk: 5_000, unit: 1_000 };

/**
 * An integration file that starts a server of its own does so for options that make it wait (retries
 * and their dead-letter queues, the lake's runs, upload budgets, restarts of `npm start`): the longest
 * files of the suite (60 to 250 s). Started after the files that share a server, one of them would
 * end the run alone on its worker.
 */
const ownServerMs = 60_000;

/** Whether an integration file starts a local server of its own (test/helpers/local-server.ts). */
function startsOwnServer(path) {
  try {
    return readFileSync(path, 'utf8').includes('startLocalServer(');
  } catch {
    return false;
  }
}

class ProjectAwareSequencer extends Sequencer {
  time(test) {
    const measured = super.time(test);
    if (measured !== undefined) return measured;
    const project = test.context.config.displayName?.name;
    if (project === 'integration' && startsOwnServer(test.path)) return ownServerMs;
    const size = test.context.hasteFS.getSize(test.path) ?? 0;
    // A byte of a unit file as a tenth of a millisecond: 20 KB, 2 s; never more than a CDK file.
    return typicalMs[project] ?? Math.min(typicalMs.unit + size / 10, typicalMs.cdk - 1);
  }
}

module.exports = ProjectAwareSequencer;
