import { PurgeQueueCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { packExportMessages } from '../../functions/shared/queue/export-message';
import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sqsClientOf, startLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';
import type { ConfigResponse, LogEntry } from '../helpers/s3-export';
import { plugins, S3ExportHarness } from '../helpers/s3-export';

/** What one config's uploads may take per invocation here (45 s on AWS): the hanging destination's time. */
const exportBudgetMs = 15_000;

/**
 * S3 Export to destinations that never answer or refuse connections, beside a healthy one: a server
 * of its own, whose upload budget is shorter than the function's 45 s.
 */
describe('S3 Export to the embedded S3', () => {
  let server: LocalServer;
  let exportBucket: S3ExportHarness;
  const api = () => privateApi(server);

  beforeAll(async () => {
    server = await startLocalServer({ exportBudgetSeconds: exportBudgetMs / 1000 });
    exportBucket = await S3ExportHarness.create(server, 'flock-exports');
  });

  afterAll(async () => {
    exportBucket?.destroy();
    // The failing configs' messages would be retried up to their fifth receive, which the server's
    // stop waits for (draining the exports queue, up to 30 s): the test is done with them.
    if (server) {
      const sqs = sqsClientOf(server);
      await sqs.send(new PurgeQueueCommand({ QueueUrl: server.endpoints.exportsQueueUrl }));
      sqs.destroy();
    }
    await server?.stop();
  });

  describe('with a destination that never answers and one that refuses connections', () => {
    let hanging: Server;
    const held: Socket[] = [];
    let closedPort: number;

    beforeAll(async () => {
      // Accepts connections and never answers (bounded: closed, its sockets destroyed, after the test).
      hanging = createServer((socket) => held.push(socket));
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      // A port nothing listens on: bound, then closed.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      closedPort = (probe.address() as { port: number }).port;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
    });

    afterAll(async () => {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    });

    /** The exports messages of `count` events for a config, as the consumer hands them over. */
    const handOver = (projectId: number, configId: number, count: number): string[] =>
      packExportMessages(
        { projectId, pluginConfigId: configId, source: randomUUID() },
        Array.from({ length: count }, () => ({
          uuid: randomUUID(),
          event: 'paid',
          distinct_id: 'ada',
          team_id: projectId,
          ip: null,
          timestamp: new Date().toISOString(),
          properties: { amount: 5 },
        })),
      ).bodies;

    it("fails only the hanging config's messages, in time; the errors carry a code and no address or stack", async () => {
      // Prepare: three projects whose exports share one batch, the hanging one first
      const hangingProject = await newProject(server, 'Hanging');
      const refusedProject = await newProject(server, 'Refusing');
      const healthyProject = await newProject(server, 'Healthy');
      const hangingPort = (hanging.address() as { port: number }).port;
      const hangingConfig = await exportBucket.enable(
        hangingProject.configs,
        plugins.s3Export,
        { ...exportBucket.settings('hanging/'), s3BucketEndpoint: `http://127.0.0.1:${hangingPort}` },
        1,
      );
      const refusedConfig = await exportBucket.enable(
        refusedProject.configs,
        plugins.s3Export,
        { ...exportBucket.settings('refusing/'), s3BucketEndpoint: `http://127.0.0.1:${closedPort}` },
        1,
      );
      const prefix = `healthy-${healthyProject.id}/`;
      const healthyConfig = await exportBucket.enable(
        healthyProject.configs,
        plugins.s3Export,
        exportBucket.settings(prefix),
        1,
      );
      const bodies = [
        ...handOver(hangingProject.id, hangingConfig, 2),
        ...handOver(refusedProject.id, refusedConfig, 2),
        ...handOver(healthyProject.id, healthyConfig, 3),
      ];
      const sqs = new SQSClient({
        endpoint: server.endpoints.sqsEndpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });

      // Act: one SendMessageBatch, so the exports function receives the three configs together
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: server.endpoints.exportsQueueUrl,
          Entries: bodies.map((body, n) => ({ Id: String(n), MessageBody: body })),
        }),
      );
      sqs.destroy();

      // Assess: the healthy config's events are exported after the batching window, not after the
      // hanging destination's time (its upload budget; the function's timeout, before)
      await exportBucket.exported(prefix, 3);
      const hangingAtExport = await api().get<ConfigResponse>(`${hangingProject.configs}${hangingConfig}/`);
      expect(hangingAtExport.body.error ?? null).toBeNull();
      const errorOf = (project: { configs: string }, config: number) =>
        eventually(
          `config ${config} to record its error`,
          async () => {
            const response = await api().get<ConfigResponse>(`${project.configs}${config}/`);
            return response.body.error ?? undefined;
          },
          60_000,
        );
      const [timedOut, unreachable] = await Promise.all([
        errorOf(hangingProject, hangingConfig),
        errorOf(refusedProject, refusedConfig),
      ]);
      // The budget, not the attempts, ended the hanging upload: 15 s hold the first attempt's 10 s of
      // silence (functions/exports/upload.ts) and part of the second, not the third attempt.
      expect(held.length).toBeGreaterThan(0);
      expect(held.length).toBeLessThan(3);
      expect(timedOut).toMatchObject({
        code: 'endpoint_timeout',
        message: 'The bucket endpoint did not answer in time.',
      });
      expect(unreachable).toMatchObject({
        code: 'endpoint_unreachable',
        message: 'The bucket endpoint could not be reached.',
      });
      for (const error of [timedOut, unreachable]) {
        expect(error).not.toHaveProperty('stack');
        expect(JSON.stringify({ ...error, time: undefined })).not.toMatch(
          /ECONN|127\.0\.0\.1|:\d{2,5}\b|\bat /,
        );
      }
      const logs = await api().get<{ results: LogEntry[] }>(
        `${refusedProject.configs}${refusedConfig}/logs/?type_filter=ERROR`,
      );
      expect(logs.body.results[0]?.message).toBe(
        'The bucket endpoint could not be reached. (endpoint_unreachable)',
      );
    }, 120_000);
  });
});
