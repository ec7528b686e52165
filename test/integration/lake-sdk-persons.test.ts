import { randomUUID } from 'node:crypto';
import { PostHog } from 'posthog-node';
import type { PostHog as BrowserPostHog } from 'posthog-js';
import { privateApi } from '../helpers/api';
import { faultyLakeServer } from '../helpers/faulty-lake';
import { queryLake } from '../helpers/lake';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';
import {
  acceptedEvents,
  launchChromium,
  posthogJsPage,
  recordCaptureRequests,
  servePage,
} from './sdk/browser';

/**
 * The events lake through the real local server, as lake.test.ts tests it (the same faults strike
 * once per container), for posthog-js in a browser and for the person each event had when it was
 * processed (person-on-events).
 */

const step = 120_000;

describe('the events lake, through the local server: posthog-js and person-on-events', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer(faultyLakeServer);
  }, step);

  afterAll(async () => {
    await server?.stop();
  });

  it(
    'holds each event posthog-js sent from a browser once',
    async () => {
      const pages = await servePage(posthogJsPage);
      const browser = await launchChromium(step);
      try {
        const tab = await browser.newPage();
        tab.setDefaultTimeout(step);
        const requests = recordCaptureRequests(tab, server.credentials.apiUrl);
        const settings = { token: server.credentials.projectApiKey, apiHost: server.credentials.apiUrl };
        await tab.goto(`${pages.url}?settings=${encodeURIComponent(JSON.stringify(settings))}`);
        await tab.evaluate('window.posthogLoaded');
        await tab.evaluate(() => {
          const { posthog } = globalThis as unknown as { posthog: BrowserPostHog };
          for (let index = 0; index < 5; index++) posthog.capture('lake browser', { index });
        });
        const browserEvents = (): string[] =>
          acceptedEvents(requests)
            .filter((event) => event.event === 'lake browser')
            .map((event) => event.uuid);
        await eventually(
          'posthog-js to send its events',
          async () => (browserEvents().length === 5 ? true : undefined),
          step,
        );
        // Everything posthog-js had accepted (its $pageview too), in the lake once each.
        const sent = [...new Set(acceptedEvents(requests).map((event) => event.uuid))];
        const inList = sent.map((uuid) => `'${uuid}'`).join(', ');
        await eventually(
          `the ${sent.length} browser events in the lake`,
          async () => {
            const [row] = await queryLake(
              server,
              `SELECT count(DISTINCT uuid) AS events FROM lake WHERE uuid IN (${inList})`,
            );
            return Number(row?.events ?? 0) === sent.length ? true : undefined;
          },
          90_000,
        );
        const rows = await queryLake(
          server,
          `SELECT uuid, count(*) AS copies, any_value(mat_browser) AS browser FROM lake WHERE uuid IN (${inList}) GROUP BY uuid`,
        );
        expect(rows.filter((row) => Number(row.copies) !== 1)).toEqual([]);
        expect(rows.map((row) => row.browser)).toEqual(sent.map(() => 'Chrome'));
      } finally {
        await browser.close();
        await pages.close();
      }
    },
    4 * step,
  );

  it(
    'holds each event’s person and the person’s properties as they were right after it (person-on-events)',
    async () => {
      const run = randomUUID().slice(0, 8);
      const distinctId = `lake-person-${run}`;
      const client = new PostHog(server.credentials.projectApiKey, {
        host: server.credentials.apiUrl,
        flushAt: 10,
        flushInterval: 0,
      });
      const start = Date.now() - 60_000;
      const uuids: [string, string, string] = [randomUUID(), randomUUID(), randomUUID()];
      const inLake = (count: number): Promise<Record<string, unknown>[]> =>
        eventually(
          `${count} of the person's events in the lake`,
          async () => {
            const found = await queryLake(
              server,
              `SELECT uuid, person_id, person_properties FROM lake WHERE distinct_id = '${distinctId}'`,
            );
            return found.length === count ? found : undefined;
          },
          // Every fault may strike on these messages first (a container's first hand-off and flush).
          180_000,
        );
      // The first event sets a property and is in the lake before the second changes it.
      client.capture({
        uuid: uuids[0],
        distinctId,
        event: 'signed up',
        timestamp: new Date(start),
        properties: { $set: { plan: 'free', run } },
      });
      await client.flush();
      await inLake(1);
      // Then a later update of the same property, and an event that processes no person.
      client.capture({
        uuid: uuids[1],
        distinctId,
        event: 'upgraded',
        timestamp: new Date(start + 1_000),
        properties: { $set: { plan: 'pro' } },
      });
      client.capture({
        uuid: uuids[2],
        distinctId,
        event: 'anonymous',
        timestamp: new Date(start + 2_000),
        properties: { $process_person_profile: false },
      });
      await client.shutdown();

      const rows = await inLake(3);
      const { body } = await privateApi(server).get<{ results: { id: string }[] }>(
        `/api/projects/${server.credentials.projectId}/persons/?distinct_id=${distinctId}`,
      );
      const person = body.results[0]!;
      const byUuid = new Map(rows.map((row) => [row.uuid, row]));
      const propertiesOf = (uuid: string): unknown =>
        JSON.parse(String(byUuid.get(uuid)!.person_properties)) as unknown;
      expect(byUuid.get(uuids[0])!.person_id).toBe(person.id);
      expect(byUuid.get(uuids[1])!.person_id).toBe(person.id);
      expect(propertiesOf(uuids[0])).toMatchObject({ plan: 'free', run });
      expect(propertiesOf(uuids[1])).toMatchObject({ plan: 'pro', run });
      expect(byUuid.get(uuids[2])).toMatchObject({ person_id: null, person_properties: null });
    },
    4 * step,
  );
});
