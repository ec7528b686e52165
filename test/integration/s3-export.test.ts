import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { PostHog } from 'posthog-node';
import type { DeadMessage, QueueStats } from '../../bin/ops/dlq';
import { keys } from '../../functions/shared/db/keys';
import { SECRET_FIELD_VALUE } from '../../functions/shared/domain/plugins/config-schema';
import { postJson, privateApi } from '../helpers/api';
import { dlqCliJson } from '../helpers/dlq-cli';
import type { LocalServer } from '../helpers/local-server';
import { documentClientOf, eventually, startLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';
import { packExportMessages } from '../../functions/shared/queue/export-message';

interface ExportedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  team_id: number;
  ip: string | null;
  timestamp: string;
  properties: Record<string, unknown>;
  $set?: Record<string, unknown>;
}
interface StoredEvent {
  id: string;
  event: string;
  properties: Record<string, unknown>;
}
interface ConfigResponse {
  id: number;
  error: { message: string; code?: string; stack?: string } | null;
  delivery_rate_24h: number | null;
}
interface ValidationError {
  type: string;
  code: string;
  detail: string;
  attr: string;
}
interface LogEntry {
  source: string;
  type: string;
  message: string;
}

const plugins = { geoip: 1, propertyFilter: 2, taxonomy: 4, s3Export: 10 };
const bucket = 'flock-exports';
/** PostHog's S3 Export layout: `<prefix>YYYY-MM-DD/<YYYYMMDD>-<HHMMSS.mmm>Z-<16 hex>.jsonl.gz`. */
const keyLayout = /^(?<prefix>[^/]+\/)(\d{4})-(\d{2})-(\d{2})\/\2\3\4-\d{6}\.\d{3}Z-[0-9a-f]{16}\.jsonl\.gz$/;
/** What one config's uploads may take per invocation here (45 s on AWS): the hanging destination's time. */
const exportBudgetMs = 15_000;

/** S3 Export through the local server: events go in by capture and come out of the embedded S3. */
describe('S3 Export to the embedded S3', () => {
  let server: LocalServer;
  let s3: S3Client;
  const api = () => privateApi(server);

  beforeAll(async () => {
    server = await startLocalServer({ exportBudgetSeconds: exportBudgetMs / 1000, jobsIntervalSeconds: 1 });
    s3 = new S3Client({
      endpoint: server.endpoints.s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });

  afterAll(async () => {
    s3.destroy();
    await server.stop();
  });

  async function enable(configs: string, plugin: number, config: Record<string, string>, order: number) {
    const created = await api().post<ConfigResponse>(configs, { plugin, enabled: true, order, config });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  /** An S3 Export config writing under `prefix` of the embedded S3's bucket. */
  const s3Settings = (prefix: string, target = bucket): Record<string, string> => ({
    awsAccessKey: 'local',
    awsSecretAccessKey: 'local',
    awsRegion: 'us-east-1',
    s3BucketName: target,
    s3BucketEndpoint: server.endpoints.s3Endpoint,
    s3ForcePathStyle: 'true',
    prefix,
  });

  async function capture(token: string, batch: Record<string, unknown>[]): Promise<void> {
    const response = await postJson(server, '/batch/', {
      api_key: token,
      batch: batch.map((event) => ({ uuid: randomUUID(), properties: {}, ...event })),
    });
    expect(response.status).toBe(200);
  }

  /** Every object under `prefix`: its key and its events (gunzipped JSON lines). */
  async function objectsUnder(prefix: string): Promise<{ key: string; events: ExportedEvent[] }[]> {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    return Promise.all(
      (listed.Contents ?? []).map(async ({ Key }) => {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: Key! }));
        const text = gunzipSync(Buffer.from(await object.Body!.transformToByteArray())).toString('utf8');
        return { key: Key!, events: text.split('\n').map((line) => JSON.parse(line) as ExportedEvent) };
      }),
    );
  }

  /** The exported events under `prefix` once there are at least `count`, and a little after. */
  async function exported(prefix: string, count: number): Promise<ExportedEvent[]> {
    const found = await eventually(
      `${count} events exported under ${prefix}`,
      async () => {
        const events = (await objectsUnder(prefix)).flatMap((object) => object.events);
        return events.length >= count ? events : undefined;
      },
      40_000,
    );
    return found;
  }

  /**
   * Captures a marker event after the events under test and waits until it is exported under
   * `prefix`: it is received after them, in a later batch, so by then any copy of theirs has been
   * uploaded too. Returns the objects' keys and their events, the marker left out.
   */
  async function exportedAfter(
    token: string,
    prefix: string,
  ): Promise<{ keys: string[]; events: ExportedEvent[] }> {
    const marker = randomUUID();
    await capture(token, [{ uuid: marker, event: 'marker', distinct_id: 'marker' }]);
    const objects = await eventually(
      `the marker event to be exported under ${prefix}`,
      async () => {
        const found = await objectsUnder(prefix);
        return found.some((object) => object.events.some((event) => event.uuid === marker))
          ? found
          : undefined;
      },
      40_000,
    );
    return {
      keys: objects.map((object) => object.key),
      events: objects.flatMap((object) => object.events).filter((event) => event.uuid !== marker),
    };
  }

  const storedEvents = async (projectId: number): Promise<StoredEvent[]> =>
    (await api().get<{ results: StoredEvent[] }>(`/api/projects/${projectId}/events/?limit=1000`)).body
      .results;

  it('stores the secret access key sealed, shows it masked, keeps it on update and still exports with it', async () => {
    // Prepare
    const project = await newProject(server, 'Sealed secrets');
    const secret = `sealed-${randomUUID()}`;
    const prefix = `sealed-${project.id}/`;
    const configId = await enable(
      project.configs,
      plugins.s3Export,
      { ...s3Settings(prefix), awsSecretAccessKey: secret },
      1,
    );
    const documents = documentClientOf(server);

    // Act: the stored item, the API's view, and an update that sends every setting but the secret
    const { Item } = await documents.send(
      new GetCommand({
        TableName: server.endpoints.tables.main,
        Key: keys.pluginConfig(project.id, configId),
      }),
    );
    documents.destroy();
    const shown = await api().get<{ config: Record<string, string> }>(`${project.configs}${configId}/`);
    const { awsSecretAccessKey: _sent, ...withoutSecret } = s3Settings(prefix);
    const kept = await api().patch(`${project.configs}${configId}/`, { config: withoutSecret });
    await capture(project.token, [{ event: 'sealed', distinct_id: 'ada' }]);

    // Assess
    expect(JSON.stringify(Item)).not.toContain(secret);
    expect(Item?.secrets).toEqual({ awsSecretAccessKey: expect.any(String) });
    expect(Item?.config).not.toHaveProperty('awsSecretAccessKey');
    expect(shown.body.config.awsSecretAccessKey).toBe(SECRET_FIELD_VALUE);
    expect(kept.status).toBe(200);
    expect((await exported(prefix, 1)).map((event) => event.event)).toEqual(['sealed']);
  });

  it('uploads stored events, after plugins, once each, in PostHog layout; ignored events stay out', async () => {
    // Prepare
    const project = await newProject(server, 'Exported');
    const prefix = `live-${project.id}/`;
    await enable(project.configs, plugins.propertyFilter, { properties: 'secret' }, 1);
    const exportConfig = await enable(project.configs, plugins.s3Export, s3Settings(prefix), 2);
    const before = await api().get<ConfigResponse>(`${project.configs}${exportConfig}/`);
    expect(before.body.delivery_rate_24h).toBeNull();
    const uuids = [randomUUID(), randomUUID(), randomUUID()];

    // Act: three events, a flag call (ignored by default), and the first event sent again
    await capture(project.token, [
      { uuid: uuids[0], event: 'signed up', distinct_id: 'ada', properties: { secret: 'x', plan: 'pro' } },
      { uuid: uuids[1], event: 'paid', distinct_id: 'ada', properties: { amount: 5 } },
      { uuid: uuids[2], event: 'paid', distinct_id: 'bob', properties: { amount: 7 } },
      { event: '$feature_flag_called', distinct_id: 'ada' },
    ]);
    await capture(project.token, [
      { uuid: uuids[0], event: 'signed up', distinct_id: 'ada', properties: { secret: 'x', plan: 'pro' } },
    ]);

    // Assess
    const events = await exported(prefix, 3);
    const { keys, events: all } = await exportedAfter(project.token, prefix);
    for (const key of keys) expect(key).toMatch(keyLayout);
    expect(all.map((event) => event.uuid).sort()).toEqual([...uuids].sort());
    const signedUp = events.find((event) => event.uuid === uuids[0])!;
    expect(signedUp).toMatchObject({
      event: 'signed up',
      distinct_id: 'ada',
      team_id: project.id,
      ip: '127.0.0.1',
      properties: { plan: 'pro', $ip: '127.0.0.1' },
    });
    expect(signedUp.properties).not.toHaveProperty('secret');
    expect(Date.parse(signedUp.timestamp)).not.toBeNaN();
    const after = await api().get<ConfigResponse>(`${project.configs}${exportConfig}/`);
    expect(after.body.delivery_rate_24h).toBe(1);
    const listed = await api().get<{ results: ConfigResponse[] }>(project.configs);
    expect(listed.body.results.find((config) => config.id === exportConfig)?.delivery_rate_24h).toBe(1);
  }, 90_000);

  it('records a failing destination: the config error, a PLUGIN/ERROR log entry, no object', async () => {
    // Prepare: a bucket that does not exist
    const project = await newProject(server, 'Failing');
    const prefix = `failing-${project.id}/`;
    const exportConfig = await enable(
      project.configs,
      plugins.s3Export,
      s3Settings(prefix, `missing-${project.id}`),
      1,
    );

    // Act
    await capture(project.token, [{ event: 'lost', distinct_id: 'ada' }]);

    // Assess
    const config = await eventually(
      'the failing config to record its error',
      async () => {
        const response = await api().get<ConfigResponse>(`${project.configs}${exportConfig}/`);
        return response.body.error ? response.body : undefined;
      },
      40_000,
    );
    expect(config.error!.message).toMatch(/bucket/i);
    const logs = await api().get<{ results: LogEntry[] }>(
      `${project.configs}${exportConfig}/logs/?type_filter=ERROR`,
    );
    expect(logs.body.results[0]).toMatchObject({ source: 'PLUGIN', type: 'ERROR' });
    expect(await objectsUnder(prefix)).toEqual([]);
  }, 90_000);

  it('gives up after 5 receives: the message goes to the exports DLQ and delivery_rate_24h falls to 0', async () => {
    // Prepare
    const project = await newProject(server, 'Undelivered');
    const exportConfig = await enable(
      project.configs,
      plugins.s3Export,
      s3Settings(`undelivered-${project.id}/`, `missing-${project.id}`),
      1,
    );

    // Act
    await capture(project.token, [{ event: 'lost', distinct_id: 'ada' }]);

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

  it('the historical export job exports the stored events of its dates once, in the same layout', async () => {
    // Prepare: events stored before any export config existed
    const project = await newProject(server, 'Historical');
    const prefix = `history-${project.id}/`;
    const inRange = [randomUUID(), randomUUID()];
    const outOfRange = randomUUID();
    await capture(project.token, [
      { uuid: inRange[0], event: 'old', distinct_id: 'ada', timestamp: '2024-03-01T10:00:00.000Z' },
      { uuid: inRange[1], event: 'old', distinct_id: 'bob', timestamp: '2024-03-02T23:59:59.999Z' },
      { uuid: outOfRange, event: 'older', distinct_id: 'ada', timestamp: '2024-02-29T23:59:59.999Z' },
    ]);
    await eventually('the 3 events to be stored', async () =>
      (await storedEvents(project.id)).length === 3 ? true : undefined,
    );
    const exportConfig = await enable(project.configs, plugins.s3Export, s3Settings(prefix), 1);
    const job = `${project.configs}${exportConfig}/job/`;

    // Act: bad dates are refused; good ones run
    const badDate = await api().post<{ attr: string }>(job, {
      job: { type: 'Export historical events', payload: { dateFrom: 'March', dateTo: '2024-03-02' } },
    });
    const reversed = await api().post<{ attr: string }>(job, {
      job: { type: 'Export historical events', payload: { dateFrom: '2024-03-02', dateTo: '2024-03-01' } },
    });
    const started = await api().post(job, {
      job: { type: 'Export historical events', payload: { dateFrom: '2024-03-01', dateTo: '2024-03-02' } },
    });

    // Assess
    expect(badDate.status).toBe(400);
    expect(badDate.body.attr).toBe('job__payload__dateFrom');
    expect(reversed.status).toBe(400);
    expect(reversed.body.attr).toBe('job__payload__dateTo');
    expect(started.status).toBe(200);
    const done = await eventually(
      'the historical export to log that it is done',
      async () => {
        const logs = await api().get<{ results: LogEntry[] }>(`${project.configs}${exportConfig}/logs/`);
        return logs.body.results.find((entry) => entry.message.startsWith('The historical export is done'));
      },
      40_000,
    );
    expect(done).toMatchObject({ source: 'PLUGIN', type: 'INFO' });
    expect(done.message).toContain('2 events exported');
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // later runs must not export again
    const objects = await objectsUnder(prefix);
    for (const { key } of objects) expect(key).toMatch(keyLayout);
    const uuids = objects.flatMap((object) => object.events.map((event) => event.uuid));
    expect(uuids.sort()).toEqual([...inRange].sort());
  }, 90_000);

  it('posthog-node with GeoIP, Property Filter, Taxonomy and S3 Export: stored transformed once, exported once', async () => {
    // Prepare
    const project = await newProject(server, 'Node SDK');
    const prefix = `node-${project.id}/`;
    await enable(project.configs, plugins.geoip, {}, 1);
    await enable(project.configs, plugins.propertyFilter, { properties: 'password' }, 2);
    await enable(project.configs, plugins.taxonomy, { defaultNamingConvention: 'snake_case' }, 3);
    await enable(project.configs, plugins.s3Export, s3Settings(prefix), 4);
    const client = new PostHog(project.token, {
      host: server.credentials.apiUrl,
      flushAt: 5,
      flushInterval: 0,
    });
    const sent = 20;

    // Act
    for (let i = 0; i < sent; i++)
      client.capture({
        distinctId: `user-${i % 4}`,
        event: 'orderPlaced',
        properties: { $ip: '89.160.20.129', password: 'hunter2', order: i },
        // posthog-node asks servers not to locate its events unless told otherwise.
        disableGeoip: false,
      });
    await client.shutdown();

    // Assess: stored, transformed, once each
    const stored = await eventually(
      `the ${sent} events to be stored`,
      async () => {
        const events = await storedEvents(project.id);
        return events.length >= sent ? events : undefined;
      },
      40_000,
    );
    expect(stored).toHaveLength(sent);
    expect(new Set(stored.map((event) => event.properties.order)).size).toBe(sent);
    for (const event of stored) {
      expect(event.event).toBe('order_placed');
      expect(event.properties).not.toHaveProperty('password');
      expect(event.properties).toHaveProperty('$geoip_country_code');
    }
    // ...and exported, as stored, once each
    await exported(prefix, sent);
    const { events: exportedEvents } = await exportedAfter(project.token, prefix);
    expect(exportedEvents).toHaveLength(sent);
    expect(new Set(exportedEvents.map((event) => event.uuid))).toEqual(
      new Set(stored.map((event) => event.id)),
    );
    for (const event of exportedEvents) {
      expect(event.event).toBe('order_placed');
      expect(event.properties).not.toHaveProperty('password');
      expect(event.properties.$geoip_country_code).toBe(
        stored.find((candidate) => candidate.id === event.uuid)!.properties.$geoip_country_code,
      );
    }
  }, 120_000);
  it('refuses a bucket endpoint that is not public https: 400 naming config__s3BucketEndpoint', async () => {
    // Prepare
    const project = await newProject(server, 'Refused endpoints');

    // Act
    const answers: { status: number; body: ValidationError }[] = [];
    for (const endpoint of [
      'http://10.0.0.1:9000',
      'https://10.0.0.1',
      'https://169.254.169.254',
      'https://[::ffff:a9fe:a9fe]',
      'https://[fd00:ec2::254]',
      'https://100.64.0.1',
      'http://s3.example.com',
    ])
      answers.push(
        await api().post<ValidationError>(project.configs, {
          plugin: plugins.s3Export,
          enabled: true,
          config: { ...s3Settings('refused/'), s3BucketEndpoint: endpoint },
        }),
      );

    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ type: 'validation_error', attr: 'config__s3BucketEndpoint' });
    }
    expect(answers[2]!.body.detail).toContain('instance metadata service');
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
      const hangingConfig = await enable(
        hangingProject.configs,
        plugins.s3Export,
        { ...s3Settings('hanging/'), s3BucketEndpoint: `http://127.0.0.1:${hangingPort}` },
        1,
      );
      const refusedConfig = await enable(
        refusedProject.configs,
        plugins.s3Export,
        { ...s3Settings('refusing/'), s3BucketEndpoint: `http://127.0.0.1:${closedPort}` },
        1,
      );
      const prefix = `healthy-${healthyProject.id}/`;
      const healthyConfig = await enable(healthyProject.configs, plugins.s3Export, s3Settings(prefix), 1);
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
      await exported(prefix, 3);
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
