import { randomUUID } from 'node:crypto';
import { PostHog } from 'posthog-node';
import { envNames } from '../../functions/shared/config';
import { lakePartitionPrefix, lakeProjectPrefix } from '../../functions/shared/lake/layout';
import { privateApi } from '../helpers/api';
import { lakeKeys, queryLake } from '../helpers/lake';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';

/**
 * The lake's upkeep through the real local server: the lake function writes a file per flush, the
 * compaction job (`--lake-compact-interval`) merges a past date's files into one, readers (the
 * listing rule) see every event once all along, and deleting the project empties its prefix.
 */

const step = 120_000;
const day = 86_400_000;

describe('lake compaction and deleted projects, through the local server', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer({
      lakeIntervalSeconds: 1,
      lakeCompactIntervalSeconds: 1,
      env: {
        // Locally a flush ends within seconds; merged files go after a short grace period.
        [envNames.lakeCompactSettleSeconds]: '3',
        [envNames.lakeCompactGraceSeconds]: '15',
      },
    });
  }, step);

  afterAll(async () => {
    await server?.stop();
  });

  it(
    'merges a past date into one file, every event once before, during and after; a deleted project leaves no file',
    async () => {
      const project = await newProject(server, 'lake compaction');
      const client = new PostHog(project.token, {
        host: server.credentials.apiUrl,
        flushAt: 100,
        flushInterval: 0,
      });
      const when = new Date(Date.now() - 3 * day);
      const date = when.toISOString().slice(0, 10);
      const partition = lakePartitionPrefix(project.id, date);
      const sent: string[] = [];
      // Every reader's view: each event once, never more, whatever the compaction is doing.
      const view = async (): Promise<number> => {
        const [row] = await queryLake(
          server,
          `SELECT count(*) AS copies, count(DISTINCT uuid) AS events FROM lake WHERE project_id = ${project.id}`,
          lakeProjectPrefix(project.id),
        );
        expect(Number(row?.copies ?? 0)).toBe(Number(row?.events ?? 0));
        return Number(row?.events ?? 0);
      };

      // Three flushes, each its own file in the date's partition.
      for (let batch = 0; batch < 3; batch++) {
        for (let index = 0; index < 10; index++) {
          const uuid = randomUUID();
          sent.push(uuid);
          client.capture({
            uuid,
            distinctId: `compaction-user-${index % 3}`,
            event: 'compaction test',
            timestamp: new Date(when.getTime() + batch * 60_000 + index),
            properties: { batch, index },
          });
        }
        await client.flush();
        await eventually(
          `${sent.length} events in the lake`,
          async () => ((await view()) === sent.length ? true : undefined),
          90_000,
        );
      }
      await client.shutdown();

      // Compacted: one file a reader reads, plus the commit marker; the merged files gone.
      await eventually(
        'the partition compacted into one file',
        async () => {
          expect(await view()).toBe(sent.length);
          const names = (await lakeKeys(server, partition)).map((key) => key.slice(partition.length));
          const compacted = names.filter((name) => name.startsWith('c-'));
          const markers = names.filter((name) => name.startsWith('_compacted-'));
          return names.length === 2 && compacted.length === 1 && markers.length === 1 ? true : undefined;
        },
        90_000,
      );
      const rows = await queryLake(
        server,
        `SELECT uuid FROM lake WHERE project_id = ${project.id}`,
        lakeProjectPrefix(project.id),
      );
      expect(rows.map((row) => row.uuid).sort()).toEqual([...sent].sort());

      // Deleting the project empties its prefix (the next run of the job).
      const deleted = await privateApi(server).delete(`/api/projects/${project.id}/`);
      expect(deleted.status).toBe(204);
      await eventually(
        "the deleted project's prefix emptied",
        async () => ((await lakeKeys(server, lakeProjectPrefix(project.id))).length === 0 ? true : undefined),
        60_000,
      );
      expect(await queryLake(server, `SELECT * FROM lake WHERE project_id = ${project.id}`)).toEqual([]);
      // The server's own project keeps its files.
      expect(server.output()).not.toContain('Compacting a lake partition failed');
    },
    4 * step,
  );
});
