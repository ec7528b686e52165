import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';

const run = promisify(execFile);

describe('the curl commands npm start prints', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('capture an event and then list it, run as printed', async () => {
    // Prepare: the two commands under "Try it:", exactly as printed.
    const commands = server
      .output()
      .split('\n')
      .filter((line) => line.trim().startsWith('curl '))
      .map((line) => line.trim());
    expect(commands).toHaveLength(2);
    const [capture, list] = commands as [string, string];

    // Act
    const captured = await run('bash', ['-c', capture]);
    const listed = await eventually('the hello event to be listed', async () => {
      const { stdout } = await run('bash', ['-c', list]);
      return stdout.includes('"hello"') ? stdout : undefined;
    });

    // Assess
    expect(JSON.parse(captured.stdout)).toEqual({ status: 1 });
    const events = (JSON.parse(listed) as { results: { event: string; distinct_id: string }[] }).results;
    expect(events).toEqual([expect.objectContaining({ event: 'hello', distinct_id: 'me' })]);
  });

  it('come from a server run from its prebuilt bundle, as the integration tests start it', () => {
    // The server is the process the test started: node on the bundle of bin/local.ts, no tsx.
    const commandLine = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0');

    expect(server.endpoints.pid).toBe(server.pid);
    expect(commandLine).toContain(process.env.FLOCK_TEST_SERVER_BUNDLE);
    expect(commandLine.join(' ')).not.toMatch(/tsx|\.ts\b/);
  });
});
