import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { handler } from '../../../functions/consumer/handler';
import { readFailures } from '../../../functions/shared/db/failures';
import { storePluginConfig } from '../../helpers/plugin-configs';
import { downsamplingPlugin } from '../../../functions/shared/domain/plugins/downsampling';
import { FullBatchFailureError } from '../../../functions/shared/queue/batch-failure';
import { ingestQueue } from '../../../functions/shared/queue/definitions';
import { DynaliteTables } from '../../helpers/dynalite-tables';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';

let tables: DynaliteTables;
let emf: EmfCapture;

beforeEach(async () => {
  tables = await DynaliteTables.start(['test-main', 'test-events']);
  emf = captureEmf();
});

afterEach(async () => {
  emf.restore();
  await tables.stop();
});

const uuid = (n: number): string => `018e0000-0000-7000-8000-${String(n).padStart(12, '0')}`;

const body = (projectId: number, events: { n: number; distinctId: string; event?: unknown }[]): string =>
  JSON.stringify({
    v: 1,
    project_id: projectId,
    now: '2024-03-01T12:00:00.000Z',
    sent_at: null,
    ip: null,
    site_url: null,
    events: events.map(({ n, distinctId, event }) => ({
      uuid: uuid(n),
      distinct_id: distinctId,
      data: { event: event ?? 'signup', properties: {} },
    })),
  });

const record = (messageId: string, messageBody: string, receiveCount = 1): SQSRecord =>
  ({
    messageId,
    body: messageBody,
    attributes: { ApproximateReceiveCount: String(receiveCount) },
  }) as SQSRecord;

const context = { awsRequestId: 'req-1', functionName: 'consumer' } as Context;

describe('consumer metrics', () => {
  it('counts stored, duplicate, dropped and failed events for a known batch, per project too', async () => {
    // Prepare: bob's person write fails; project 4 sends one uuid twice; one message is garbage.
    tables.failWrite = (_attempt, description) =>
      description.includes('DID#3#bob')
        ? Object.assign(new Error('injected'), { name: 'InternalServerError' })
        : undefined;
    const event: SQSEvent = {
      Records: [
        record(
          'm-alice',
          body(3, [
            { n: 1, distinctId: 'alice' },
            { n: 2, distinctId: 'alice' },
          ]),
        ),
        record('m-bob', body(3, [{ n: 3, distinctId: 'bob' }])),
        record(
          'm-carol',
          body(4, [
            { n: 4, distinctId: 'carol' },
            { n: 4, distinctId: 'carol' },
          ]),
        ),
        record('m-garbage', 'garbage'),
      ],
    };

    // Act
    const response = await handler(event, context);

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-bob' }]);
    expect(emf.total('EventsStored')).toBe(3);
    expect(emf.total('EventsStored', { project: '3' })).toBe(2);
    expect(emf.total('EventsStored', { project: '4' })).toBe(1);
    expect(emf.total('EventsDuplicate')).toBe(1);
    expect(emf.total('EventsDropped', { reason: 'invalid' })).toBe(1);
    expect(emf.total('FailedMessages')).toBe(1);
    expect(emf.total('FailedBatches')).toBe(1);
    expect(emf.total('DeadLettered')).toBe(0);
    expect(emf.blobs.every((blob) => blob._aws.CloudWatchMetrics[0]!.Namespace === 'Flock')).toBe(true);
  });

  it('counts a message failing its last allowed receive as dead-lettered, with its real error recorded', async () => {
    // Prepare
    tables.failWrite = (_attempt, description) =>
      description.includes('test-events')
        ? Object.assign(new Error('no such table'), { name: 'ResourceNotFoundException' })
        : undefined;
    const event: SQSEvent = {
      Records: [record('m-last', body(3, [{ n: 9, distinctId: 'dave' }]), ingestQueue.maxReceiveCount)],
    };

    // Act: its only record failed, so the whole batch fails (and its metrics are still written).
    await expect(handler(event, context)).rejects.toThrow(FullBatchFailureError);

    // Assess
    expect(emf.total('DeadLettered')).toBe(1);
    expect(emf.total('EventsStored')).toBe(0);
    expect(await readFailures('test-main', 'm-last')).toEqual([
      expect.objectContaining({ errorName: 'ResourceNotFoundException', errorMessage: 'no such table' }),
    ]);
  });

  it('counts events a Downsampling config leaves out as dropped (downsampled), not as stored', async () => {
    // Prepare: project 5 keeps 0% of its events.
    await storePluginConfig('test-main', 5, {
      plugin: downsamplingPlugin.id,
      enabled: true,
      order: 1,
      config: { percentage: '0' },
      error: null,
    });
    const event: SQSEvent = {
      Records: [
        record(
          'm-sampled',
          body(5, [
            { n: 11, distinctId: 'erin' },
            { n: 12, distinctId: 'frank' },
          ]),
        ),
      ],
    };

    // Act
    const response = await handler(event, context);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(emf.total('EventsDropped', { reason: 'downsampled' })).toBe(2);
    expect(emf.total('EventsDropped', { reason: 'plugin' })).toBe(0);
    expect(emf.total('EventsStored')).toBe(0);
  });

  it('emits nothing for an empty batch', async () => {
    await handler({ Records: [] }, context);
    expect(emf.blobs).toEqual([]);
  });
});
