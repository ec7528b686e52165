import type { SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { storeEvents } from '../../../functions/consumer/store';
import { historicalJobLimits, runPluginJobs } from '../../../functions/exports/historical';
import { exportBudget, exportRecords } from '../../../functions/exports/live';
import { envNames } from '../../../functions/shared/config';
import { setFunctionEnvironment, unsetEnvironment } from '../../../bin/environment';
import { getPluginConfig } from '../../../functions/shared/db/plugin-configs';
import { storePluginConfig } from '../../helpers/plugin-configs';
import { pendingPluginJobs, recordPluginJob } from '../../../functions/shared/db/plugin-jobs';
import type { ExportMessage } from '../../../functions/shared/queue/export-message';
import { tablesWithProject } from '../../helpers/consumer-tables';
import type { DynaliteTables } from '../../helpers/dynalite-tables';

/**
 * The live export's time through the real S3 client, against two loopback destinations (allowed
 * as under the local server): one that accepts connections and never answers, one that takes every
 * PUT. Both are closed after the test.
 */

const table = 'main';
const eventsTable = 'events';
const [hangingProject, healthyProject] = [7, 8];
let fake: DynaliteTables;
let hanging: Server;
const held: Socket[] = [];
let healthy: HttpServer;
let puts = 0;

const portOf = (server: Server | HttpServer): number => (server.address() as { port: number }).port;

beforeAll(async () => {
  setFunctionEnvironment({ [envNames.localMode]: 'true' });
  hanging = createServer((socket) => held.push(socket));
  healthy = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      puts++;
      response.writeHead(200, { etag: '"1"' }).end();
    });
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => healthy.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  unsetEnvironment(envNames.localMode);
  for (const socket of held) socket.destroy();
  healthy.closeAllConnections();
  await Promise.all([
    new Promise<void>((resolve) => hanging.close(() => resolve())),
    new Promise<void>((resolve) => healthy.close(() => resolve())),
  ]);
});

/** The time each upload was given (`AbortSignal.timeout`'s milliseconds), in the order asked. */
let uploadTimes: number[];
let timeouts: jest.SpyInstance;

beforeEach(async () => {
  fake = await tablesWithProject(hangingProject);
  puts = 0;
  uploadTimes = [];
  const timeout = AbortSignal.timeout.bind(AbortSignal);
  timeouts = jest.spyOn(AbortSignal, 'timeout').mockImplementation((ms) => {
    uploadTimes.push(ms);
    return timeout(ms);
  });
});

afterEach(async () => {
  timeouts.mockRestore();
  await fake.stop();
});

async function configure(projectId: number, endpoint: string): Promise<number> {
  const { record } = await storePluginConfig(table, projectId, {
    plugin: 10,
    enabled: true,
    order: 1,
    config: {
      awsAccessKey: 'local',
      awsSecretAccessKey: 'local',
      awsRegion: 'us-east-1',
      s3BucketName: 'exports',
      s3BucketEndpoint: endpoint,
      s3ForcePathStyle: 'true',
    },
    error: null,
  });
  return record.id;
}

function record(projectId: number, configId: number): SQSRecord {
  const message: ExportMessage = {
    v: 1,
    project_id: projectId,
    plugin_config_id: configId,
    source: randomUUID(),
    events: [
      {
        uuid: randomUUID(),
        event: 'paid',
        distinct_id: 'ada',
        team_id: projectId,
        ip: null,
        timestamp: '2024-03-01T12:00:00.000Z',
        properties: {},
      },
    ],
  };
  return {
    messageId: randomUUID(),
    body: JSON.stringify(message),
    attributes: { ApproximateReceiveCount: '1' },
  } as unknown as SQSRecord;
}

describe("the live export's time", () => {
  it("answers before the function's timeout, failing only the hanging destination's messages", async () => {
    // Prepare: the hanging config first in the batch
    const hangingConfig = await configure(hangingProject, `http://127.0.0.1:${portOf(hanging)}`);
    const healthyConfig = await configure(healthyProject, `http://127.0.0.1:${portOf(healthy)}`);
    const stuck = record(hangingProject, hangingConfig);
    const fine = record(healthyProject, healthyConfig);

    // Act: 17 s left in the invocation, 15 s of which are kept for the bookkeeping
    const response = await exportRecords([stuck, fine], table, new Date(), 17_000);

    // Assess: each config's uploads had at most the 2 s left
    expect(uploadTimes).toHaveLength(2);
    for (const ms of uploadTimes) expect(ms).toBeLessThanOrEqual(17_000 - exportBudget.reserveMs);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: stuck.messageId }]);
    expect(puts).toBe(1);
    const config = await getPluginConfig(table, hangingProject, hangingConfig);
    expect(config?.error).toMatchObject({
      code: 'endpoint_timeout',
      message: 'The bucket endpoint did not answer in time.',
    });
    expect(config?.error).not.toHaveProperty('stack');
  }, 30_000);
  it("stops a historical page at its time, and the other config's job still runs in the same run", async () => {
    // Prepare: a job for each destination, the hanging one requested first
    const hangingConfig = await configure(hangingProject, `http://127.0.0.1:${portOf(hanging)}`);
    const healthyConfig = await configure(healthyProject, `http://127.0.0.1:${portOf(healthy)}`);
    for (const [projectId, configId] of [
      [hangingProject, hangingConfig],
      [healthyProject, healthyConfig],
    ] as const) {
      await storeEvents(eventsTable, [
        {
          messageId: `m${projectId}`,
          projectId,
          events: [
            {
              uuid: randomUUID(),
              projectId,
              event: 'old',
              distinctId: 'ada',
              properties: {},
              timestamp: '2024-03-01T10:00:00.000Z',
              elementsChain: '',
              createdAt: '2024-03-01T10:00:00.000Z',
            },
          ],
        },
      ]);
      await recordPluginJob(table, {
        type: 'Export historical events',
        payload: { dateFrom: '2024-03-01', dateTo: '2024-03-01', $operation: 'start' },
        pluginConfigId: configId,
        pluginConfigTeam: projectId,
      });
    }

    // Act: pages have 1 s each
    await runPluginJobs(table, eventsTable, { ...historicalJobLimits, stepBudgetMs: 1_000 });

    // Assess: the hanging job waits for the next run with its failure recorded; the other is done.
    // Each page's upload had its second.
    expect(uploadTimes).toHaveLength(2);
    for (const ms of uploadTimes) expect(ms).toBeLessThanOrEqual(1_000);
    expect(puts).toBe(1);
    const pending = await pendingPluginJobs(table, 10);
    expect(pending.map((job) => [job.request.pluginConfigId, job.progress.failures])).toEqual([
      [hangingConfig, 1],
    ]);
    const config = await getPluginConfig(table, hangingProject, hangingConfig);
    expect(config?.error).toMatchObject({ code: 'endpoint_timeout' });
  }, 30_000);
});
