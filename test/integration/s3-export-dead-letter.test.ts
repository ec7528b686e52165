import type { DeadMessage, QueueStats } from '../../bin/ops/dlq';
import { privateApi } from '../helpers/api';
import { dlqCliJson } from '../helpers/dlq-cli';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';
import type { ConfigResponse } from '../helpers/s3-export';
import { plugins, S3ExportHarness } from '../helpers/s3-export';

/**
 * An S3 Export whose destination keeps failing, through the worker's shared local server: a file of
 * its own (its five receives are most of its time), so it waits beside s3-export.test.ts's exports.
 */
describe('S3 Export to a bucket that does not exist', () => {
  let server: LocalServer;
  let exportBucket: S3ExportHarness;
  const api = () => privateApi(server);

  beforeAll(async () => {
    server = await sharedLocalServer('s3-export-dead-letter');
    exportBucket = await S3ExportHarness.create(server, 'flock-exports');
  });

  afterAll(async () => {
    exportBucket?.destroy();
    await server?.stop();
  });

  it('gives up after 5 receives: the message goes to the exports DLQ and delivery_rate_24h falls to 0', async () => {
    // Prepare
    const project = await newProject(server, 'Undelivered');
    const exportConfig = await exportBucket.enable(
      project.configs,
      plugins.s3Export,
      exportBucket.settings(`undelivered-${project.id}/`, `missing-${project.id}`),
      1,
    );

    // Act
    await exportBucket.capture(project.token, [{ event: 'lost', distinct_id: 'ada' }]);

    // Assess: each receive retried after 1 s (the test server's retry delay), the 5th counted
    const rate = await eventually(
      'delivery_rate_24h to be computed after the fifth receive',
      async () => {
        const response = await api().get<ConfigResponse>(`${project.configs}${exportConfig}/`);
        return response.body.delivery_rate_24h ?? undefined;
      },
      150_000,
    );
    expect(rate).toBe(0);
    // The operator's view: the exports DLQ in stats, and the message with why each attempt failed.
    // (Other tests' failing destinations may have dead-lettered messages too.)
    const dead = await eventually(
      'the dead-lettered export of this project in the exports DLQ',
      async () => {
        const listed = await dlqCliJson<DeadMessage[]>(server, 'list', '--queue', 'exports');
        return listed.find((message) => message.projectId === project.id);
      },
      30_000,
    );
    const queues = await dlqCliJson<QueueStats[]>(server, 'stats');
    expect(queues.map((queue) => queue.queue)).toEqual([
      'ingest',
      'dlq',
      'exports',
      'exports-dlq',
      'lake',
      'lake-dlq',
    ]);
    expect(queues.find((queue) => queue.queue === 'exports-dlq')?.visible).toBeGreaterThanOrEqual(1);
    expect(dead).toMatchObject({ projectId: project.id, pluginConfigId: exportConfig, eventNames: ['lost'] });
    expect(dead.failures.map((failure) => failure.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(dead.failures[0]!.errorMessage).toMatch(/bucket/i);
  }, 200_000);
});
