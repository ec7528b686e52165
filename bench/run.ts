import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Summary } from './lib';
import { benchShort, summaryPrefix } from './lib';

/**
 * `npm run bench`: every benchmark under bench/ (or those named), each in its own process, one after
 * the other, then one summary table (figure, target, met or not) with the date and the machine, as
 * bench/RESULTS.md records it. A bench that fails to run (or prints no verdict) fails the command; a
 * missed target does not (timings depend on the machine). `npm run bench:smoke` (`BENCH_SHORT=1`)
 * runs every bench in its short form, where only running and printing count.
 */
const only = process.argv.slice(2);
const benches = readdirSync(__dirname)
  .filter((file) => file.endsWith('.ts') && !['run.ts', 'lib.ts'].includes(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

interface Outcome {
  readonly bench: string;
  readonly summaries: Summary[];
  readonly seconds: number;
  /** Why the bench did not run to its end, if it did not. */
  readonly failure?: string;
}

const emfLine = '{"_aws":';

/** Runs one bench, passing its output through and keeping its summary lines. */
function runBench(bench: string): Promise<Outcome> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(__dirname, '../node_modules/tsx/dist/cli.mjs'), join(__dirname, `${bench}.ts`)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const summaries: Summary[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith(summaryPrefix))
      summaries.push(JSON.parse(line.slice(summaryPrefix.length)) as Summary);
    // The EMF metric lines of handlers run in the bench's own process: one per request, no figure.
    else if (!line.startsWith(emfLine)) console.log(line);
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      const failure =
        code !== 0
          ? `exited with ${signal ?? `code ${String(code)}`}`
          : summaries.length === 0
            ? 'printed no figures'
            : undefined;
      resolve({ bench, summaries, seconds, ...(failure ? { failure } : {}) });
    });
  });
}

const cell = (text: string): string => text.replaceAll('|', '\\|');

function summaryTable(outcomes: readonly Outcome[]): string {
  const rows = outcomes.flatMap((outcome) =>
    outcome.failure
      ? [`| ${outcome.bench} | FAILED: ${outcome.failure} | | no |`]
      : outcome.summaries.map(
          (summary) =>
            `| ${outcome.bench} | ${cell(summary.figure)} | ${cell(summary.target)} | ${
              benchShort ? 'n/a (short run)' : summary.met ? 'yes' : 'no'
            } |`,
        ),
  );
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node.js ${process.version}`;
  return [
    `${benchShort ? 'Short run (BENCH_SHORT=1)' : 'Run'} of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}`,
    '',
    '| bench | figure | target | met |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const outcomes: Outcome[] = [];
  for (const bench of benches) {
    const outcome = await runBench(bench);
    console.log(
      `\n(${bench}: ${Math.round(outcome.seconds)} s${outcome.failure ? `, FAILED: ${outcome.failure}` : ''})`,
    );
    outcomes.push(outcome);
  }
  console.log(`\n# Summary\n\n${summaryTable(outcomes)}`);
  const failed = outcomes.filter((outcome) => outcome.failure);
  if (failed.length > 0) {
    console.error(
      `\n${failed.length} bench(es) failed to run: ${failed.map((outcome) => outcome.bench).join(', ')}`,
    );
    process.exitCode = 1;
  }
}

void main();
