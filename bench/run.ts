import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** `npm run bench`: every benchmark under bench/ (or those named), each in its own process, in one run. */
const only = process.argv.slice(2);
const benches = readdirSync(__dirname)
  .filter((file) => file.endsWith('.ts') && !['run.ts', 'lib.ts'].includes(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

for (const bench of benches) {
  execFileSync(
    process.execPath,
    [join(__dirname, '../node_modules/tsx/dist/cli.mjs'), join(__dirname, `${bench}.ts`)],
    {
      stdio: 'inherit',
    },
  );
}
