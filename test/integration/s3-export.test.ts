import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { PostHog } from 'posthog-node';
import { keys } from '../../functions/shared/db/keys';
import { SECRET_FIELD_VALUE } from '../../functions/shared/domain/plugins/config-schema';
import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { documentClientOf, eventually, sharedLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';
import type { ConfigResponse, LogEntry } from '../helpers/s3-export';
import { keyLayout, plugins, S3ExportHarness } from '../helpers/s3-export';

interface StoredEvent {
  id: string;
  event: string;
  properties: Record<string, unknown>;
}
interface ValidationError {
  type: string;
  code: string;
  detail: string;
  attr: string;
}

/**
 * S3 Export through the worker's shared local server: events go in by capture and come out of the
 * embedded S3 (a bucket of the file's own). The dead-lettered export (s3-export-dead-letter.test.ts)
 * and the destinations that hang or refuse (s3-export-hanging.test.ts, on a server with a shorter
 * upload budget) are files of their own, so their waits run beside these on other workers.
 */
describe('S3 Export to the embedded S3', () => {
  let server: LocalServer;
  let exportBucket: S3ExportHarness;
  const api = () => privateApi(server);

  beforeAll(async () => {
    server = await sharedLocalServer('s3-export');
    exportBucket = await S3ExportHarness.create(server, 'flock-exports');
  });

  afterAll(async () => {
    exportBucket?.destroy();
    await server?.stop();
  });

  const storedEvents = async (projectId: number): Promise<StoredEvent[]> =>
    (await api().get<{ results: StoredEvent[] }>(`/api/projects/${projectId}/events/?limit=1000`)).body
      .results;

  it('stores the secret access key sealed, shows it masked, keeps it on update and still exports with it', async () => {
    // Prepare
    const project = await newProject(server, 'Sealed secrets');
    const secret = `sealed-${randomUUID()}`;
    const prefix = `sealed-${project.id}/`;
    const configId = await exportBucket.enable(
      project.configs,
      plugins.s3Export,
      { ...exportBucket.settings(prefix), awsSecretAccessKey: secret },
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
    const { awsSecretAccessKey: _sent, ...withoutSecret } = exportBucket.settings(prefix);
    const kept = await api().patch(`${project.configs}${configId}/`, { config: withoutSecret });
    await exportBucket.capture(project.token, [{ event: 'sealed', distinct_id: 'ada' }]);

    // Assess
    expect(JSON.stringify(Item)).not.toContain(secret);
    expect(Item?.secrets).toEqual({ awsSecretAccessKey: expect.any(String) });
    expect(Item?.config).not.toHaveProperty('awsSecretAccessKey');
    expect(shown.body.config.awsSecretAccessKey).toBe(SECRET_FIELD_VALUE);
    expect(kept.status).toBe(200);
    expect((await exportBucket.exported(prefix, 1)).map((event) => event.event)).toEqual(['sealed']);
  });

  it('uploads stored events, after plugins, once each, in PostHog layout; ignored events stay out', async () => {
    // Prepare
    const project = await newProject(server, 'Exported');
    const prefix = `live-${project.id}/`;
    await exportBucket.enable(project.configs, plugins.propertyFilter, { properties: 'secret' }, 1);
    const exportConfig = await exportBucket.enable(
      project.configs,
      plugins.s3Export,
      exportBucket.settings(prefix),
      2,
    );
    const before = await api().get<ConfigResponse>(`${project.configs}${exportConfig}/`);
    expect(before.body.delivery_rate_24h).toBeNull();
    const uuids = [randomUUID(), randomUUID(), randomUUID()];

    // Act: three events, a flag call (ignored by default), and the first event sent again
    await exportBucket.capture(project.token, [
      { uuid: uuids[0], event: 'signed up', distinct_id: 'ada', properties: { secret: 'x', plan: 'pro' } },
      { uuid: uuids[1], event: 'paid', distinct_id: 'ada', properties: { amount: 5 } },
      { uuid: uuids[2], event: 'paid', distinct_id: 'bob', properties: { amount: 7 } },
      { event: '$feature_flag_called', distinct_id: 'ada' },
    ]);
    await exportBucket.capture(project.token, [
      { uuid: uuids[0], event: 'signed up', distinct_id: 'ada', properties: { secret: 'x', plan: 'pro' } },
    ]);

    // Assess
    const events = await exportBucket.exported(prefix, 3);
    const { keys, events: all } = await exportBucket.exportedAfter(project.token, prefix);
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
    const exportConfig = await exportBucket.enable(
      project.configs,
      plugins.s3Export,
      exportBucket.settings(prefix, `missing-${project.id}`),
      1,
    );

    // Act
    await exportBucket.capture(project.token, [{ event: 'lost', distinct_id: 'ada' }]);

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
    expect(await exportBucket.objectsUnder(prefix)).toEqual([]);
  }, 90_000);

  it('the historical export job exports the stored events of its dates once, in the same layout', async () => {
    // Prepare: events stored before any export config existed
    const project = await newProject(server, 'Historical');
    const prefix = `history-${project.id}/`;
    const inRange = [randomUUID(), randomUUID()];
    const outOfRange = randomUUID();
    await exportBucket.capture(project.token, [
      { uuid: inRange[0], event: 'old', distinct_id: 'ada', timestamp: '2024-03-01T10:00:00.000Z' },
      { uuid: inRange[1], event: 'old', distinct_id: 'bob', timestamp: '2024-03-02T23:59:59.999Z' },
      { uuid: outOfRange, event: 'older', distinct_id: 'ada', timestamp: '2024-02-29T23:59:59.999Z' },
    ]);
    await eventually('the 3 events to be stored', async () =>
      (await storedEvents(project.id)).length === 3 ? true : undefined,
    );
    const exportConfig = await exportBucket.enable(
      project.configs,
      plugins.s3Export,
      exportBucket.settings(prefix),
      1,
    );
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
    const objects = await exportBucket.objectsUnder(prefix);
    for (const { key } of objects) expect(key).toMatch(keyLayout);
    const uuids = objects.flatMap((object) => object.events.map((event) => event.uuid));
    expect(uuids.sort()).toEqual([...inRange].sort());
  }, 90_000);

  it('posthog-node with GeoIP, Property Filter, Taxonomy and S3 Export: stored transformed once, exported once', async () => {
    // Prepare
    const project = await newProject(server, 'Node SDK');
    const prefix = `node-${project.id}/`;
    await exportBucket.enable(project.configs, plugins.geoip, {}, 1);
    await exportBucket.enable(project.configs, plugins.propertyFilter, { properties: 'password' }, 2);
    await exportBucket.enable(
      project.configs,
      plugins.taxonomy,
      { defaultNamingConvention: 'snake_case' },
      3,
    );
    await exportBucket.enable(project.configs, plugins.s3Export, exportBucket.settings(prefix), 4);
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
    await exportBucket.exported(prefix, sent);
    const { events: exportedEvents } = await exportBucket.exportedAfter(project.token, prefix);
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
          config: { ...exportBucket.settings('refused/'), s3BucketEndpoint: endpoint },
        }),
      );

    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ type: 'validation_error', attr: 'config__s3BucketEndpoint' });
    }
    expect(answers[2]!.body.detail).toContain('instance metadata service');
  });
});
