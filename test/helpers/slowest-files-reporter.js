// A jest reporter that ends a run with its slowest test files and tests, to find where a project's
// time goes: `npx jest --selectProjects unit --reporters default --reporters
// ./test/helpers/slowest-files-reporter.js`. `FLOCK_SLOWEST=<n>` sets how many of each it lists (10).
'use strict';
const { relative } = require('node:path');
const process = require('node:process');

class SlowestFilesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.count = Number(process.env.FLOCK_SLOWEST) > 0 ? Number(process.env.FLOCK_SLOWEST) : 10;
    this.files = [];
    this.tests = [];
  }

  onTestResult(test, result) {
    const file = relative(this.rootDir, result.testFilePath);
    this.files.push({
      file,
      ms: result.perfStats.end - result.perfStats.start,
      tests: result.numPassingTests,
    });
    for (const assertion of result.testResults)
      this.tests.push({ file, title: assertion.title, ms: assertion.duration ?? 0 });
  }

  onRunComplete() {
    const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(7)} s`;
    const slowest = (rows) => [...rows].sort((a, b) => b.ms - a.ms).slice(0, this.count);
    const total = this.files.reduce((sum, row) => sum + row.ms, 0);
    const lines = [
      `Slowest test files (${this.files.length} files, ${seconds(total).trim()} in all):`,
      ...slowest(this.files).map((row) => `${seconds(row.ms)}  ${row.file} (${row.tests} passed)`),
      'Slowest tests:',
      ...slowest(this.tests).map((row) => `${seconds(row.ms)}  ${row.file} › ${row.title}`),
    ];
    process.stderr.write(`\n${lines.join('\n')}\n`);
  }
}

module.exports = SlowestFilesReporter;
