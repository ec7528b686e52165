import type { LocalServer } from '../../helpers/local-server';
import { startLocalServer } from '../../helpers/local-server';
import { captureAndWaitForCount } from '../../helpers/stored-events';

/**
 * The CSV export's read budget: an export stops reading once it has read for
 * `FLOCK_EVENTS_CSV_READ_MS` and answers the rows it read with `Link: <…>; rel="next"`. Here the
 * budget is 0 ms, so every answer holds one chunk of the read, and a client that follows `Link` gets
 * every event exactly once, newest first.
 */
const eventCount = 300;

describe('the events CSV export, cut by its read budget', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer({ env: { FLOCK_EVENTS_CSV_READ_MS: '0' } });
  }, 60_000);

  afterAll(async () => {
    await server.stop();
  });

  it('answers in pages whose Link, followed, yields every event once and in order', async () => {
    // Prepare: events a second apart, so newest first is one order.
    const uuids = Array.from(
      { length: eventCount },
      (_, i) => `0190b000-0000-7000-8000-${String(i).padStart(12, '0')}`,
    );
    await captureAndWaitForCount(
      server,
      uuids.map((uuid, i) => ({
        event: 'paged',
        distinct_id: `user-${i % 7}`,
        uuid,
        timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
        properties: { n: i },
      })),
      100,
    );
    const path = `/api/projects/${server.credentials.projectId}/events/`;

    // Act: the export, then each `Link` it gives.
    const pages: string[][] = [];
    let next: string | undefined = `${server.credentials.apiUrl}${path}?format=csv`;
    while (next !== undefined) {
      const response: Response = await fetch(next, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      });
      expect(response.status).toBe(200);
      const [header = '', ...rows] = (await response.text()).split('\r\n').slice(0, -1);
      expect(header.split(',')[0]).toBe('id');
      pages.push(rows.map((row) => row.slice(0, row.indexOf(','))));
      next = /^<(.+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    }

    // Assess: cut into several answers, together every event once, newest first.
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual([...uuids].reverse());
  }, 120_000);
});
