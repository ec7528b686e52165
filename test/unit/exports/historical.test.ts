import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { storeEvents } from '../../../functions/consumer/store';
import type { HistoricalJobLimits } from '../../../functions/exports/historical';
import { historicalJobLimits, runPluginJobs } from '../../../functions/exports/historical';
import { storePluginConfig } from '../../helpers/plugin-configs';
import {
  countPendingPluginJobs,
  pendingPluginJobs,
  recordPluginJob,
} from '../../../functions/shared/db/plugin-jobs';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import type { ProcessedPluginEvent } from '../../../functions/shared/domain/plugins/types';
import { consumerTables, tablesWithProject } from '../../helpers/consumer-tables';
import type { DynaliteTables } from '../../helpers/dynalite-tables';

const projectId = 7;
const { singleTable, eventsTable } = consumerTables;
const s3 = mockClient(S3Client);
let fake: DynaliteTables;
let configId: number;

beforeEach(async () => {
  s3.reset();
  s3.on(PutObjectCommand).resolves({});
  fake = await tablesWithProject(projectId);
  const { record } = await storePluginConfig(singleTable, projectId, {
    plugin: 10,
    enabled: true,
    order: 1,
    config: { awsAccessKey: 'AKIA', awsSecretAccessKey: 's', awsRegion: 'eu-west-1', s3BucketName: 'b' },
    error: null,
  });
  configId = record.id;
});

afterEach(async () => {
  await fake.stop();
});

function stored(timestamp: string): StoredEvent {
  return {
    uuid: randomUUID(),
    projectId,
    event: 'old',
    distinctId: 'ada',
    properties: { $ip: '203.0.113.9' },
    timestamp,
    elementsChain: '',
    createdAt: timestamp,
  };
}

const requestExport = (dateFrom: string, dateTo: string, operation = 'start') =>
  recordPluginJob(singleTable, {
    type: 'Export historical events',
    payload: { dateFrom, dateTo, $operation: operation },
    pluginConfigId: configId,
    pluginConfigTeam: projectId,
  });

const exportedUuids = (): string[] =>
  s3
    .commandCalls(PutObjectCommand)
    .map((call) => call.args[0].input)
    .flatMap((input) =>
      gunzipSync(input.Body as Buffer)
        .toString('utf8')
        .split('\n')
        .map((line) => (JSON.parse(line) as ProcessedPluginEvent).uuid),
    );

const small: HistoricalJobLimits = { ...historicalJobLimits, pageSize: 2, maxPagesPerRun: 1 };

describe('the historical export job', () => {
  it('exports the stored events of its range a page per step, resuming where the last run stopped', async () => {
    // Prepare: five events in range (two at the same millisecond), one before, one after
    const inRange = [
      stored('2024-03-01T00:00:00.000Z'),
      stored('2024-03-01T10:00:00.000Z'),
      stored('2024-03-01T10:00:00.000Z'),
      stored('2024-03-02T12:00:00.000Z'),
      stored('2024-03-02T23:59:59.999Z'),
    ];
    const outside = [stored('2024-02-29T23:59:59.999Z'), stored('2024-03-03T00:00:00.000Z')];
    await storeEvents(eventsTable, [{ messageId: 'm', projectId, events: [...inRange, ...outside] }]);
    await requestExport('2024-03-01', '2024-03-02');

    // Act: one page of two events per run
    const pendingAfter: number[] = [];
    for (let run = 0; run < 4; run++) {
      await runPluginJobs(singleTable, eventsTable, small);
      pendingAfter.push((await pendingPluginJobs(singleTable, 10)).length);
    }

    // Assess: three runs, one object each, every event of the range once
    expect(pendingAfter).toEqual([1, 1, 0, 0]);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(3);
    expect(exportedUuids().sort()).toEqual(inRange.map((event) => event.uuid).sort());
  });

  it('uploads a step that failed again under the same keys, so nothing is exported twice', async () => {
    // Prepare
    await storeEvents(eventsTable, [
      {
        messageId: 'm',
        projectId,
        events: [stored('2024-03-01T01:00:00.000Z'), stored('2024-03-01T02:00:00.000Z')],
      },
    ]);
    await requestExport('2024-03-01', '2024-03-01');
    s3.on(PutObjectCommand).rejects(new Error('Service Unavailable'));

    // Act: the step fails (after its retries), then succeeds on the next run
    await runPluginJobs(singleTable, eventsTable);
    const failedKeys = s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input.Key);
    s3.on(PutObjectCommand).resolves({});
    await runPluginJobs(singleTable, eventsTable);

    // Assess
    const keys = s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input.Key);
    expect(new Set(keys).size).toBe(1);
    expect(keys[keys.length - 1]).toBe(failedKeys[0]);
    expect(await pendingPluginJobs(singleTable, 10)).toEqual([]);
  }, 15_000);

  it('stops the pending exports of a config requested before a stop', async () => {
    // Prepare
    await storeEvents(eventsTable, [
      { messageId: 'm', projectId, events: [stored('2024-03-01T01:00:00.000Z')] },
    ]);
    await requestExport('2024-03-01', '2024-03-01');
    await requestExport('', '', 'stop');

    // Act
    await runPluginJobs(singleTable, eventsTable);

    // Assess
    expect(s3.commandCalls(PutObjectCommand)).toEqual([]);
    expect(await pendingPluginJobs(singleTable, 10)).toEqual([]);
  });

  it("counts the config's job requests still waiting (what job/ bounds), not finished ones", async () => {
    // Prepare
    await requestExport('2024-03-01', '2024-03-01');
    await requestExport('2024-03-02', '2024-03-02');
    const waiting = await countPendingPluginJobs(singleTable, projectId, configId);

    // Act
    await runPluginJobs(singleTable, eventsTable);

    // Assess
    expect(waiting).toBe(2);
    expect(await countPendingPluginJobs(singleTable, projectId, configId)).toBe(0);
    expect(await countPendingPluginJobs(singleTable, projectId, configId + 1)).toBe(0);
  });
  it('lets configs take turns a page each: a large export does not hold back another config', async () => {
    // Prepare: this config's job over 30 events to a slow bucket, then another project's small job
    const otherProject = projectId + 1;
    const { record: other } = await storePluginConfig(singleTable, otherProject, {
      plugin: 10,
      enabled: true,
      order: 1,
      config: {
        awsAccessKey: 'AKIA',
        awsSecretAccessKey: 's',
        awsRegion: 'eu-west-1',
        s3BucketName: 'other',
      },
      error: null,
    });
    const large = Array.from({ length: 30 }, (_, n) =>
      stored(`2024-03-01T00:00:${String(n).padStart(2, '0')}.000Z`),
    );
    const small = { ...stored('2024-03-01T05:00:00.000Z'), projectId: otherProject };
    await storeEvents(eventsTable, [
      { messageId: 'm', projectId, events: large },
      { messageId: 'n', projectId: otherProject, events: [small] },
    ]);
    await requestExport('2024-03-01', '2024-03-01');
    await recordPluginJob(singleTable, {
      type: 'Export historical events',
      payload: { dateFrom: '2024-03-01', dateTo: '2024-03-01', $operation: 'start' },
      pluginConfigId: other.id,
      pluginConfigTeam: otherProject,
    });
    s3.on(PutObjectCommand, { Bucket: 'b' }).callsFake(async () => {
      await sleep(200);
      return {};
    });
    s3.on(PutObjectCommand, { Bucket: 'other' }).resolves({});

    // Act: one run, shorter than the large export
    await runPluginJobs(singleTable, eventsTable, {
      ...historicalJobLimits,
      pageSize: 1,
      maxPagesPerRun: 100,
      runBudgetMs: 1_500,
    });

    // Assess: the small export is done, the large one goes on in the next run
    const pending = await pendingPluginJobs(singleTable, 10);
    expect(pending.map((job) => job.request.pluginConfigId)).toEqual([configId]);
    expect(exportedUuids()).toContain(small.uuid);
    expect(exportedUuids().length).toBeLessThan(large.length + 1);
  }, 15_000);
});
