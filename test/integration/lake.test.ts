import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PostHogOptions } from 'posthog-node';
import { PostHog } from 'posthog-node';
import { faultyLakeServer } from '../helpers/faulty-lake';
import { pipelineBacklog, queryLake } from '../helpers/lake';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';

type Fetch = NonNullable<PostHogOptions['fetch']>;

/**
 * The events lake through the real local server (`npm start`): posthog-node sends events, the
 * consumer hands them to the lake queue, the lake function writes Parquet files into the embedded S3
 * every second, and the files are read back with DuckDB. Every fault of test/fixtures/lake-faults.ts
 * strikes once per container: hand-offs that fail and are redelivered, hand-offs sent twice, a lake
 * upload that fails after its claims, a lake writer that stops between upload and commit. The
 * events of posthog-js and person-on-events are lake-sdk-persons.test.ts's, on a server of their own
 * with the same faults, so that its waits run beside these on another worker.
 */

const step = 120_000;
const day = 86_400_000;

describe('the events lake, through the local server', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer(faultyLakeServer);
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
});
