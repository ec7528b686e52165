import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { ingestRecords, newConsumerMemory } from '../../../functions/consumer/ingest';
import { drainLake } from '../../../functions/lake/flush';
import { captureRecord } from '../../helpers/capture-records';
import { lakeTestBed } from '../../helpers/lake-mocks';

/**
 * The lake writer's flushes are bounded by the JSON their messages hold, not only by their events:
 * large events (capture takes up to 240 KiB each, a person's properties add up to 160 KiB) would
 * otherwise fill the function's memory long before `flushEvents`, and a writer that runs out of it
 * puts every project's held messages back. Real consumer hand-offs, the writer's real flush, on an
 * in-memory DynamoDB (dynalite); SQS and S3 mocked.
 */

const projectId = 7;
const settleSeconds = 60;
const { sent, objects, tables, settings, sqs } = lakeTestBed(projectId, settleSeconds);

/** Six ingest messages of one event each, with 100 KB of properties, stored and handed over. */
async function storeLargeEvents(): Promise<void> {
  const records = Array.from({ length: 6 }, (_, index) =>
    captureRecord(projectId, randomUUID(), [
      {
        event: 'large',
        distinctId: `user-${index}`,
        properties: { blob: String(index).repeat(100_000) },
        uuid: randomUUID(),
      },
    ]),
  );
  const { batchItemFailures } = await ingestRecords(records, tables, newConsumerMemory());
  expect(batchItemFailures).toEqual([]);
  expect(sent).toHaveLength(6);
}

/** The lake queue as the writer receives it: the hand-offs one at a time, old enough to be settled. */
function queueHoldsHandOffs(): void {
  const waiting = sent.map((one) => one.body);
  const sentAt = String(Date.now() - (settleSeconds + 1) * 1000);
  sqs.on(ReceiveMessageCommand).callsFake(() => {
    const body = waiting.shift();
    return body === undefined
      ? { Messages: [] }
      : {
          Messages: [
            {
              MessageId: randomUUID(),
              ReceiptHandle: randomUUID(),
              Body: body,
              Attributes: { SentTimestamp: sentAt },
            },
          ],
        };
  });
}

describe('the lake writer holds a bounded amount of JSON per flush', () => {
  it('flushes each time its messages pass flushBytes, well before flushEvents', async () => {
    // Arrange: six hand-offs of about 100 KB each, and a bound of 250 KB a flush
    await storeLargeEvents();
    queueHoldsHandOffs();

    // Act
    const outcome = await drainLake({ ...settings, flushBytes: 250_000 }, Date.now() + 60_000);

    // Assess: every event written, in two flushes of three messages (one file each), not one of six
    expect(outcome).toMatchObject({ written: 6, failed: 0, files: 2 });
    expect(objects.size).toBe(2);
  });

  it('holds them all in one flush under the default bound', async () => {
    await storeLargeEvents();
    queueHoldsHandOffs();
    const outcome = await drainLake(settings, Date.now() + 60_000);
    expect(outcome).toMatchObject({ written: 6, failed: 0, files: 1 });
  });
});
