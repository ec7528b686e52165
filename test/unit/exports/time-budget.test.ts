import type { SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { exportRecords } from '../../../functions/exports/live';
import { envNames, setFunctionEnvironment, unsetEnvironment } from '../../../functions/shared/config';
import { getPluginConfig, upsertPluginConfig } from '../../../functions/shared/db/plugin-configs';
import type { ExportMessage } from '../../../functions/shared/queue/export-message';
import { tablesWithProject } from '../../helpers/consumer-tables';
import type { DynaliteTables } from '../../helpers/dynalite-tables';

/**
 * The live export's time through the real S3 client, against two loopback destinations (allowed
 * as under the local server): one that accepts connections and never answers, one that takes every
 * PUT. Both are closed after the test.
 */

const table = 'main';
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

beforeEach(async () => {
  fake = await tablesWithProject(hangingProject);
});

afterEach(async () => {
  await fake.stop();
});

async function configure(projectId: number, endpoint: string): Promise<number> {
  const { record } = await upsertPluginConfig(table, projectId, {
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
    const started = Date.now();
    const response = await exportRecords([stuck, fine], table, new Date(), 17_000);
    const took = Date.now() - started;

    // Assess
    expect(took).toBeLessThan(6_000);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: stuck.messageId }]);
    expect(puts).toBe(1);
    const config = await getPluginConfig(table, hangingProject, hangingConfig);
    expect(config?.error).toMatchObject({
      code: 'endpoint_timeout',
      message: 'The bucket endpoint did not answer in time.',
    });
    expect(config?.error).not.toHaveProperty('stack');
  }, 30_000);
});
