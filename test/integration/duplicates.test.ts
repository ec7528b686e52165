import { randomUUID } from 'node:crypto';
import { postJson } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';

/**
 * EventsStored, EventsDuplicate and EventsAlreadyStored as the consumer emits them, read from the
 * local server's pipeline line (bin/local/pipeline-summary.ts adds up the functions' EMF metrics):
 * its "since start" totals are the metrics' sums.
 */
describe('events sent more than once: counted as stored once, then by kind', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  interface Totals {
    readonly received: number;
    readonly stored: number;
    readonly duplicate: number;
    readonly alreadyStored: number;
  }

  /** The last "since start" totals the server printed (all zero before the first line). */
  const totals = (): Totals => {
    const line =
      server
        .output()
        .match(/since start: [^)]*\)/g)
        ?.at(-1) ?? '';
    const count = (what: string): number => Number(new RegExp(`(\\d+) ${what}`).exec(line)?.[1] ?? 0);
    return {
      received: count('received'),
      stored: count('stored'),
      duplicate: count('duplicate in a batch'),
      alreadyStored: count('already stored'),
    };
  };

  /** Waits for the totals to reach `expected`, and returns them. */
  const totalsReaching = (expected: (totals: Totals) => boolean, description: string) =>
    eventually(
      `the pipeline line's totals to show ${description}`,
      async () => (expected(totals()) ? totals() : undefined),
      30_000,
    );

  const pageview = (uuid: string) => ({ event: '$pageview', distinct_id: 'user-1', uuid });

  it('counts a uuid sent twice in one batch as one stored event and one duplicate in a batch', async () => {
    // Prepare
    const before = totals();
    const repeated = randomUUID();

    // Act: one request, so one message and one consumer batch.
    const response = await postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: [pageview(repeated), pageview(repeated), pageview(randomUUID())],
    });

    // Assess
    expect(response.status).toBe(200);
    const after = await totalsReaching(
      (now) => now.received === before.received + 3 && now.stored > before.stored,
      '3 more received and some stored',
    );
    expect(after).toEqual({
      received: before.received + 3,
      stored: before.stored + 2,
      duplicate: before.duplicate + 1,
      alreadyStored: before.alreadyStored,
    });
  });

  it('counts an event sent again after it was stored as already stored, not as stored again', async () => {
    // Prepare: one event stored.
    const uuid = randomUUID();
    const body = { api_key: server.credentials.projectApiKey, batch: [pageview(uuid)] };
    const before = totals();
    await postJson(server, '/batch/', body);
    const stored = await totalsReaching((now) => now.stored === before.stored + 1, 'one more stored');

    // Act: the SDK sends the same event again (a retry whose first answer was lost).
    const response = await postJson(server, '/batch/', body);

    // Assess
    expect(response.status).toBe(200);
    const after = await totalsReaching(
      (now) => now.received === stored.received + 1 && now.stored + now.alreadyStored > stored.stored,
      'the event sent again counted',
    );
    expect(after).toEqual({
      ...stored,
      received: stored.received + 1,
      alreadyStored: stored.alreadyStored + 1,
    });
  });
});
