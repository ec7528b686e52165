import type { SharedServerInfo } from '../helpers/shared-servers';
import { SharedServers } from '../helpers/shared-servers';

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls until `pid` has exited, for at most `timeoutMs`; whether it did. */
async function exits(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return !isRunning(pid);
}

describe('the shared local servers of the integration files', () => {
  let broker: SharedServers;
  const graceMs = 1500;
  // A worker id of its own: the broker under test is not the run's, but its servers are real.
  const worker = () => `${broker.url}/servers/9999`;
  const take = async (): Promise<SharedServerInfo> =>
    (await (await fetch(worker())).json()) as SharedServerInfo;
  const release = async (): Promise<number> => (await fetch(worker(), { method: 'DELETE' })).status;

  beforeAll(async () => {
    broker = await SharedServers.listen(graceMs);
  });

  afterAll(async () => {
    await broker.stop();
  });

  it('closes the connection of every answer, so no file reuses one the broker is closing', async () => {
    const taken = await fetch(worker());
    await taken.json();
    const released = await fetch(worker(), { method: 'DELETE' });
    expect([taken.headers.get('connection'), released.headers.get('connection')]).toEqual(['close', 'close']);
  }, 120_000);

  it('keeps a worker’s server for its next file, and stops it once no file has held it for the grace period', async () => {
    // Prepare: a file takes the worker's server and releases it; the next takes it within the grace period.
    const first = await take();
    expect(await release()).toBe(204);
    const next = await take();

    // Act: the next file is done, and no other comes.
    expect(await release()).toBe(204);
    const stopped = await exits(next.pid, graceMs + 30_000);

    // Assess: one server for both files, stopped once idle; a later file gets a new one.
    expect(next.pid).toBe(first.pid);
    expect(stopped).toBe(true);
    const later = await take();
    expect(later.pid).not.toBe(first.pid);
    expect(isRunning(later.pid)).toBe(true);
  }, 120_000);
});
