import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { postJson, privateApi, rawRequest } from '../helpers/api';
import { partialQueueFailureHeader } from '../fixtures/partial-queue-failure';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';
import { captureLimits } from '../../functions/shared/queue/definitions';

interface EventsPage {
  results: { id: string; event: string; distinct_id: string; properties: Record<string, unknown> }[];
}

/**
 * What an attacker holding only a project token can send to capture: events too big to store, and
 * requests with more events than a batch may carry. Each must cost nothing to the other events.
 */
describe('capture under hostile input, through the local server', () => {
  let server: LocalServer;
  let eventsPath: string;

  beforeAll(async () => {
    // The fault module acts only on requests that carry its header (see the partial 503 test).
    server = await startLocalServer({
      functionPreload: [join(__dirname, '../fixtures/partial-queue-failure.ts')],
    });
    eventsPath = `/api/projects/${server.credentials.projectId}/events/`;
  });

  afterAll(async () => {
    await server.stop();
  });

  const storedNamed = async (name: string, limit = 100) => {
    const response = await privateApi(server).get<EventsPage>(
      `${eventsPath}?event=${encodeURIComponent(name)}&limit=${limit}`,
    );
    expect(response.status).toBe(200);
    return response.body.results;
  };

  /** Sends a marker event and waits until it is stored, after the events captured before it. */
  const storedAfter = async (marker: string): Promise<void> => {
    const response = await postJson(server, '/capture/', {
      api_key: server.credentials.projectApiKey,
      event: marker,
      distinct_id: 'marker',
    });
    expect(response.status).toBe(200);
    await eventually(`the marker event ${marker} to be stored`, async () =>
      (await storedNamed(marker)).length > 0 ? true : undefined,
    );
  };

  it('drops an event too big to store and stores the rest of its batch, answering 200', async () => {
    // Prepare: an event just over the per-event cap, and one over SQS's 256 KiB message size (the
    // queues' maximum), between ordinary ones.
    const name = `sized ${randomUUID()}`;
    const small = [randomUUID(), randomUUID(), randomUUID()];
    const big = (bytes: number) => ({
      event: name,
      distinct_id: 'u1',
      uuid: randomUUID(),
      properties: { blob: 'x'.repeat(bytes) },
    });
    const batch = [
      { event: name, distinct_id: 'u1', uuid: small[0] },
      big(captureLimits.maxEventBytes + 1),
      { event: name, distinct_id: 'u1', uuid: small[1] },
      big(300 * 1024),
      { event: name, distinct_id: 'u1', uuid: small[2] },
    ];

    // Act
    const response = await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });

    // Assess
    expect(response).toMatchObject({ status: 200, body: { status: 1 } });
    const stored = await eventually('the 3 small events of the batch to be stored', async () => {
      const events = await storedNamed(name);
      return events.length >= 3 ? events : undefined;
    });
    expect(stored.map((event) => event.id).sort()).toEqual([...small].sort());
  });

  it('stores every event of a person whose $set would outgrow a DynamoDB item, and goes on storing', async () => {
    // Prepare: four events of 120 KB of person properties each (480 KB together), then a small one.
    const name = `heavy person ${randomUUID()}`;
    const distinctId = `heavy-${randomUUID()}`;
    const heavy = Array.from({ length: 4 }, (_, i) => ({
      event: name,
      distinct_id: distinctId,
      uuid: randomUUID(),
      properties: { $set: { [`trait-${i}`]: 'x'.repeat(120_000) } },
    }));
    const after = {
      event: name,
      distinct_id: distinctId,
      uuid: randomUUID(),
      properties: { $set: { plan: 'pro' } },
    };

    // Act
    for (const event of heavy) {
      const response = await postJson(server, '/capture/', {
        api_key: server.credentials.projectApiKey,
        ...event,
      });
      expect(response.status).toBe(200);
    }
    await postJson(server, '/capture/', { api_key: server.credentials.projectApiKey, ...after });

    // Assess
    const stored = await eventually('the 5 events of the heavy person to be stored', async () => {
      const events = await storedNamed(name);
      return events.length >= 5 ? events : undefined;
    });
    expect(stored.map((event) => event.id).sort()).toEqual(
      [...heavy.map((event) => event.uuid), after.uuid].sort(),
    );
  });

  it('stores each event once when an SDK retries a request answered 503 after part of it was queued, uuids or not', async () => {
    // Prepare: two queue messages' worth of events without uuids, each with its own timestamp, as
    // posthog-python sends them.
    const name = `retried ${randomUUID()}`;
    const batch = Array.from({ length: captureLimits.maxEventsPerMessage + 1 }, (_, i) => ({
      event: name,
      distinct_id: `customer-${i % 7}`,
      timestamp: new Date(Date.UTC(2026, 10, 24, 10, 0, 0, i)).toISOString(),
      properties: { n: i },
    }));
    const body = JSON.stringify({ api_key: server.credentials.projectApiKey, batch });
    const json = { 'content-type': 'application/json' };

    // Act: the first attempt meets a queue that takes its first message only; the SDK sends it again.
    const first = await rawRequest(server, 'POST', '/batch/', {
      headers: { ...json, [partialQueueFailureHeader]: 'partial-queue' },
      body,
    });
    const retry = await rawRequest(server, 'POST', '/batch/', { headers: json, body });

    // Assess: all three messages were queued before the retry answered. A marker event sent after
    // the retry is received after them, in a batch whose batching window closes later: once it is
    // stored, any duplicate has landed too.
    expect(first.status).toBe(503);
    expect(retry.status).toBe(200);
    await eventually('every event of the retried batch to be stored', async () => {
      const events = await storedNamed(name, 1000);
      return events.length >= batch.length ? events : undefined;
    });
    await storedAfter(`after ${name}`);
    const stored = await storedNamed(name, 1000);
    const numbers = stored.map((event) => Number(event.properties.n)).sort((a, b) => a - b);
    expect(numbers).toEqual(batch.map((_, i) => i));
  });

  it('refuses a request with more events than one request may carry (413, so SDKs halve the batch)', async () => {
    // Prepare
    const name = `flood ${randomUUID()}`;
    const batch = Array.from({ length: captureLimits.maxEventsPerRequest + 1 }, () => ({
      event: name,
      distinct_id: 'u2',
    }));

    // Act
    const response = await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });

    // Assess
    expect(response).toMatchObject({
      status: 413,
      body: { type: 'client_error', code: 'request_too_large', detail: 'Request too large.', attr: null },
    });
  });
});
