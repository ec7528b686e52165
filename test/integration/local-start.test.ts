import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { privateApi } from '../helpers/api';
import { startLocalServer } from '../helpers/local-server';

const root = resolve(__dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');

/** Runs a CLI of the repository to its end (at most 60 s): exit code and everything it printed. */
function run(
  script: string,
  args: readonly string[],
  cwd = root,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [tsx, join(root, script), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

/** Every file under `dir`, path → SHA-256 of its bytes. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[path.slice(dir.length)] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(dir);
  return files;
}

/** Lines of output that are not the runtime's own warnings. */
const linesOf = (output: string): string[] =>
  output
    .split('\n')
    .filter(
      (line) =>
        line.trim() !== '' &&
        !/Warning|trace-warnings|node >=22|a\.co\/|upgrade to node|versions published|To continue/.test(line),
    );

describe('npm start protects the data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flock-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('leaves the persistent data directory byte for byte unchanged during a --memory run', async () => {
    // Prepare: a project directory whose default .flock holds real data.
    const project = mkdtempSync(join(tmpdir(), 'flock-project-'));
    const flockDir = join(project, '.flock');
    try {
      const persistent = await startLocalServer({ persistent: true, dataDir: flockDir });
      expect(await persistent.stop()).toBe(0);
      const before = snapshot(flockDir);

      // Act: `npm start -- --memory` in that directory, then stop it.
      const memory = spawn(process.execPath, [tsx, join(root, 'bin/local.ts'), '--memory', '--port', '0'], {
        cwd: project,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      memory.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise((done) => memory.on('exit', done));
      while (!output.includes('Flock is running')) await new Promise((r) => setTimeout(r, 50));
      memory.kill('SIGINT');
      await exited;

      // Assess: nothing under .flock changed; the keys went to a temporary directory, named.
      expect(snapshot(flockDir)).toEqual(before);
      const savedTo = /saved to\s+(\S+)credentials\.json/.exec(output)?.[1] ?? '';
      expect(savedTo.startsWith(tmpdir())).toBe(true);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses to bootstrap over data without credentials, and the printed command is the way back', async () => {
    // Prepare: data, then its credentials lost.
    const first = await startLocalServer({ persistent: true, dataDir });
    const { projectId } = first.credentials;
    expect(await first.stop()).toBe(0);
    unlinkSync(join(dataDir, 'credentials.json'));

    // Act
    const refused = await run('bin/local.ts', ['--port', '0', '--data-dir', dataDir]);
    const command = `npm run flock -- keys create --local --data-dir ${dataDir}`;
    const recovered = await run('bin/flock.ts', ['keys', 'create', '--local', '--data-dir', dataDir]);
    const again = await startLocalServer({ persistent: true, dataDir });

    // Assess
    try {
      expect(refused.code).not.toBe(0);
      expect(refused.output).toContain(command);
      expect(refused.output).not.toMatch(/\n\s+at /);
      expect(recovered.code).toBe(0);
      expect(again.output()).toContain('(reused)');
      expect(again.credentials.projectId).toBe(projectId);
      const me = await privateApi(again).get<{ organizations: unknown[] }>('/api/users/@me/');
      expect(me.status).toBe(200);
      // Still the one organization: nothing was bootstrapped a second time.
      expect(me.body.organizations).toHaveLength(1);
    } finally {
      await again.stop();
    }
  }, 180_000);

  it('exits with one line when the data directory is in use or the port is busy', async () => {
    const running = await startLocalServer({ persistent: true, dataDir });
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const { port } = busy.address() as AddressInfo;
    try {
      const second = await run('bin/local.ts', ['--port', '0', '--data-dir', dataDir]);
      const other = mkdtempSync(join(tmpdir(), 'flock-port-'));
      const portTaken = await run('bin/local.ts', ['--memory', '--port', String(port), '--data-dir', other]);
      rmSync(other, { recursive: true, force: true });

      expect(second.code).not.toBe(0);
      expect(linesOf(second.output)).toEqual([
        expect.stringContaining(`Flock is already running on ${dataDir}`),
      ]);
      expect(portTaken.code).not.toBe(0);
      expect(linesOf(portTaken.output)).toEqual([
        expect.stringContaining(`Port ${port} on 127.0.0.1 is already in use`),
      ]);
    } finally {
      busy.close();
      await running.stop();
    }
  }, 180_000);
});

describe('npm start checks its durations', () => {
  it.each(['-1', 'soon', ''])(
    'refuses --exports-batching-window %j with one line, before starting',
    async (value) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'flock-window-'));
      try {
        const refused = await run('bin/local.ts', [
          '--memory',
          '--port',
          '0',
          '--data-dir',
          dataDir,
          '--exports-batching-window',
          value,
        ]);

        expect(refused.code).not.toBe(0);
        expect(linesOf(refused.output)).toEqual([
          `error: option '--exports-batching-window <seconds>' argument '${value}' is invalid. expected a number of seconds, 0 or more.`,
        ]);
        expect(readdirSync(dataDir)).toEqual([]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
