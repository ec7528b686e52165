import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

/**
 * `npm run synth`: `cdk synth --quiet` without the lines every run prints that say nothing about
 * this run (a banner per bundled function, the count of CDK feature flags left at their defaults).
 * Errors, warnings and cdk-nag findings pass through; `--verbose` shows everything; the exit code is
 * cdk's. Extra arguments go to cdk (`npm run synth -- FlockStateful`).
 */
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const cdkArgs = ['synth', '--quiet', ...args.filter((arg) => arg !== '--verbose')];
const noise = [/^Bundling asset \S+\.\.\.$/, /^\d+ feature flags are not configured\./];

const child = spawn(process.execPath, [join(__dirname, '../node_modules/aws-cdk/bin/cdk'), ...cdkArgs], {
  stdio: ['inherit', 'pipe', 'pipe'],
});
for (const [stream, out] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
] as const) {
  createInterface({ input: stream }).on('line', (line) => {
    if (verbose || !noise.some((pattern) => pattern.test(line))) out.write(`${line}\n`);
  });
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
