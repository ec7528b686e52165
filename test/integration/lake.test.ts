import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PostHogOptions } from 'posthog-node';
import { PostHog } from 'posthog-node';
import type { PostHog as BrowserPostHog } from 'posthog-js';
import { privateApi } from '../helpers/api';
import { lakeFaultsVariable } from '../fixtures/lake-faults';
import { pipelineBacklog, queryLake } from '../helpers/lake';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';
import {
  acceptedEvents,
  launchChromium,
  posthogJsPage,
  recordCaptureRequests,
  servePage,
} from './sdk/browser';

type Fetch = NonNullable<PostHogOptions['fetch']>;

/**
 * The events lake through the real local server (`npm start`): posthog-node sends events, the
 * consumer hands them to the lake queue, the lake function writes Parquet files into the embedded S3
 * every second, and the files are read back with DuckDB. Every fault of test/fixtures/lake-faults.ts
 * strikes once per container: hand-offs that fail and are redelivered, hand-offs sent twice, a lake
 * upload that fails after its claims, a lake writer that stops between upload and commit.
 */

const step = 120_000;
const day = 86_400_000;

describe('the events lake, through the local server', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer({
      lakeIntervalSeconds: 1,
      functionPreload: [join(__dirname, '../fixtures/lake-faults.ts')],
      env: { [lakeFaultsVariable]: 'handoff-fail,handoff-lost,upload-crash,commit-crash' },
    });
  }, step);

  afterAll(async () => {
    await server?.stop();
  });

  /**
   * Waits until the lake holds `count` distinct events `where`, then until every retry has played out
   * (the queues empty) and one more flush has run: what is counted then is final.
   */
  async function inLakeAndDrained(where: string, count: number): Promise<void> {
    await eventually(
      `the ${count} events in the lake`,
      async () => {
        const [row] = await queryLake(
          server,
          `SELECT count(DISTINCT uuid) AS events FROM lake WHERE ${where}`,
        );
        return Number(row?.events ?? 0) === count ? true : undefined;
      },
      90_000,
    );
    await eventually(
      'the ingest and lake queues to drain',
      async () => ((await pipelineBacklog(server)) === 0 ? true : undefined),
      90_000,
    );
    await sleep(3_000);
  }

  it(
    'holds each event posthog-node sent once, after an SDK retry, redeliveries and crashes; a late event in its own date',
    async () => {
      // posthog-node whose first /batch/ answer is lost: the SDK sends the same events again.
      let answersLost = 0;
      const losingFirstAnswer: Fetch = async (url, options) => {
        const response = await fetch(url, options);
        if (answersLost === 0 && new URL(url).pathname === '/batch/') {
          answersLost++;
          throw new Error('test: connection reset before the answer');
        }
        return response;
      };
      const client = new PostHog(server.credentials.projectApiKey, {
        host: server.credentials.apiUrl,
        flushAt: 10,
        flushInterval: 0,
        fetch: losingFirstAnswer,
        fetchRetryDelay: 100,
      });
      const sent: string[] = [];
      for (let index = 0; index < 40; index++) {
        const uuid = randomUUID();
        sent.push(uuid);
        client.capture({
          uuid,
          distinctId: `lake-user-${index % 4}`,
          event: 'lake test',
          properties: { index, $browser: 'Firefox', $current_url: `https://example.com/${index}` },
        });
      }
      const lateUuid = randomUUID();
      const lateTime = new Date(Date.now() - 3 * day);
      client.capture({ uuid: lateUuid, distinctId: 'lake-user-0', event: 'late', timestamp: lateTime });
      sent.push(lateUuid);
      await client.shutdown();
      expect(answersLost).toBe(1);

      const projectId = server.credentials.projectId;
      await inLakeAndDrained(`project_id = ${projectId}`, sent.length);

      const rows = await queryLake(
        server,
        `SELECT uuid, count(*) AS copies FROM lake WHERE project_id = ${projectId} GROUP BY uuid`,
      );
      expect(rows.map((row) => row.uuid).sort()).toEqual([...sent].sort());
      expect(rows.filter((row) => Number(row.copies) !== 1)).toEqual([]);

      const [late] = await queryLake(
        server,
        `SELECT CAST(date AS VARCHAR) AS date, event, epoch_ms("timestamp") AS ms FROM lake WHERE uuid = '${lateUuid}'`,
      );
      expect(late).toMatchObject({ date: lateTime.toISOString().slice(0, 10), event: 'late' });
      // PostHog's clock-skew correction (sent_at against the time received) moves it by seconds at most.
      expect(Math.abs(Number(late!.ms) - lateTime.getTime())).toBeLessThan(60_000);
      const [typed] = await queryLake(
        server,
        `SELECT mat_browser, mat_current_url, distinct_id FROM lake WHERE uuid = '${sent[5]}'`,
      );
      expect(typed).toEqual({
        mat_browser: 'Firefox',
        mat_current_url: 'https://example.com/5',
        distinct_id: 'lake-user-1',
      });
      // Each fault did strike.
      for (const fault of ['handoff-fail', 'handoff-lost', 'upload-crash', 'commit-crash'])
        expect(server.output()).toContain(`lake fault struck: ${fault}`);
    },
    4 * step,
  );

  it(
    'holds each event once when an SDK retry races its original (two /batch/ requests with the same uuids at once)',
    async () => {
      const { apiUrl, projectApiKey, projectId } = server.credentials;
      const uuids = Array.from({ length: 20 }, () => randomUUID());
      const body = JSON.stringify({
        api_key: projectApiKey,
        batch: uuids.map((uuid, index) => ({
          uuid,
          event: 'lake race',
          distinct_id: `lake-race-${index % 3}`,
          properties: { index },
        })),
      });
      const post = () =>
        fetch(`${apiUrl}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answers = await Promise.all([post(), post()]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);

      const inList = uuids.map((uuid) => `'${uuid}'`).join(', ');
      await inLakeAndDrained(`project_id = ${projectId} AND uuid IN (${inList})`, uuids.length);
      const [counted] = await queryLake(
        server,
        `SELECT count(*) AS rows FROM lake WHERE project_id = ${projectId} AND uuid IN (${inList})`,
      );
      expect(Number(counted?.rows)).toBe(uuids.length);
    },
    4 * step,
  );

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
