import { setTimeout as sleep } from 'node:timers/promises';
import { privateApi } from '../helpers/api';
import { ingestionPlugins, plugins } from '../helpers/ingestion-plugins';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';

/**
 * The Downsampling plugin in the consumer of a local server of the file's own: its drops are counted
 * in the server's output.
 */
describe('plugins in ingestion: Downsampling', () => {
  let server: LocalServer;
  const api = () => privateApi(server);
  const { capture, enable, eventsNamed, stored } = ingestionPlugins(() => server);

  beforeAll(async () => {
    server = await startLocalServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('Downsampling at 0% drops events (counted as downsampled), and a change reaches ingestion within 5 s', async () => {
    const project = await newProject(server, 'Downsampled');
    const config = await enable(project.configs, plugins.downsampling, { percentage: '0' });
    await capture(project.token, [
      { event: 'sampled out', distinct_id: 'a' },
      { event: 'sampled out', distinct_id: 'b' },
    ]);
    await eventually('the server to report downsampled events', async () =>
      /dropped \([^)]*\d+ downsampled/.test(server.output()) ? true : undefined,
    );

    // Disable it; events captured 5 s later must be kept.
    const changedAt = Date.now();
    expect((await api().patch(`${project.configs}${config}/`, { enabled: false })).status).toBe(200);
    const probes: { sentAfterMs: number; name: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const name = `probe ${i}`;
      probes.push({ sentAfterMs: Date.now() - changedAt, name });
      await capture(project.token, [{ event: name, distinct_id: 'a' }]);
      await sleep(500);
    }
    const late = probes.filter((probe) => probe.sentAfterMs >= 5_000);
    expect(late.length).toBeGreaterThan(0);
    // Every probe sent 5 s or more after the change is stored (each waited for, or the test fails).
    for (const probe of late) await stored(project.id, probe.name, 1);
    expect(await eventsNamed(project.id, 'sampled out')).toEqual([]);
  });
});
