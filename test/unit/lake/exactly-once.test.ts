import { DeleteMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestRecords, newConsumerMemory } from '../../../functions/consumer/ingest';
import { eventSourceOf } from '../../../functions/consumer/lake-sources';
import { flushHeld } from '../../../functions/lake/flush';
import { lakeDatabase } from '../../../functions/lake/parquet';
import { documentClient } from '../../../functions/shared/db/client';
import { keys } from '../../../functions/shared/db/keys';
import type { LakeMessage } from '../../../functions/shared/queue/lake-message';
import { lakeMessageSchema, parseLakeBody } from '../../../functions/shared/queue/lake-message';
import { captureRecord } from '../../helpers/capture-records';
import { consumerTables } from '../../helpers/consumer-tables';
import { lakeTestBed } from '../../helpers/lake-mocks';

/**
 * The lake's exactly once (docs/lake.md), through the consumer's real stages and the lake writer's
 * flush on an in-memory DynamoDB (dynalite), SQS and S3 mocked: two consumers carrying the same
 * uuids interleaved step by step, redeliveries, a timestamp changed on a redelivery, a writer that
 * stopped between upload and commit, a hand-off younger than the settle time, a deleted event.
 */

const projectId = 7;
const settleSeconds = 60;
const bed = lakeTestBed(projectId, settleSeconds);
const { sent, objects, sqs, tables, settings } = bed;

/** An ingest record carrying `uuids`; `copy` tells the copies apart (an SDK retry is another request). */
const recordOf = (uuids: readonly string[], copy: string): SQSRecord =>
  captureRecord(
    projectId,
    randomUUID(),
    uuids.map((uuid, index) => ({
      event: 'exactly once',
      distinctId: `user-${index}`,
      properties: { copy },
      uuid,
    })),
  );

const consume = async (record: SQSRecord): Promise<void> => {
  const { batchItemFailures } = await ingestRecords([record], tables, newConsumerMemory());
  expect(batchItemFailures).toEqual([]);
};

/** The hand-offs sent so far, taken off the list. */
const takeHandOffs = (): LakeMessage[] =>
  sent.splice(0).map(({ body }) => lakeMessageSchema.parse(parseLakeBody(body)));

/** One flush of the lake writer over these hand-offs, sent `ageSeconds` ago. */
const flush = (messages: readonly LakeMessage[], ageSeconds = settleSeconds + 1) => {
  const now = new Date();
  return flushHeld(
    settings,
    messages.map((message) => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      message,
      heldUntil: now.getTime() + settings.visibilitySeconds * 1000,
      sentAt: now.getTime() - ageSeconds * 1000,
    })),
    now,
  );
};

/** Every row of the lake files written so far: its uuid, its copy and its date partition. */
async function lakeRows(): Promise<{ uuid: string; copy: string; key: string }[]> {
  const rows: { uuid: string; copy: string; key: string }[] = [];
  const { connection } = await lakeDatabase();
  for (const [key, body] of objects) {
    const path = join(tmpdir(), `exactly-once-${process.pid}-${randomUUID()}.parquet`);
    writeFileSync(path, body);
    try {
      const read = (
        await connection.runAndReadAll(
          `SELECT CAST(uuid AS VARCHAR) AS uuid, properties FROM read_parquet('${path}')`,
        )
      ).getRowObjectsJson() as { uuid: string; properties: string }[];
      for (const row of read)
        rows.push({ uuid: row.uuid, copy: (JSON.parse(row.properties) as { copy: string }).copy, key });
    } finally {
      rmSync(path, { force: true });
    }
  }
  return rows;
}

/** The stored copy of an event (its `copy` property) and the source its item names. */
async function storedCopy(uuid: string): Promise<{ copy: string; src: unknown }> {
  const item = await bed.fake.get(consumerTables.eventsTable, keys.event(projectId, uuid));
  return { copy: (JSON.parse(String(item?.props)) as { copy: string }).copy, src: item?.src };
}

/**
 * Runs `first` until it is about to write its events (it has read them "not stored"), runs `second`
 * through (it reads them "not stored" too, writes and hands them over), then lets `first` write:
 * both messages read before either wrote, and `first` writes last.
 */
async function interleave(first: SQSRecord, second: SQSRecord): Promise<void> {
  let holding = true;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atWrite = new Promise<void>((resolve) => (reached = resolve));
  bed.fake.failWrite = async (_attempt, description) => {
    if (!holding || !description.startsWith(`batch-put ${consumerTables.eventsTable} `)) return undefined;
    holding = false;
    reached();
    await released;
    return undefined;
  };
  const firstDone = consume(first);
  await atWrite;
  await consume(second);
  release();
  await firstDone;
  bed.fake.failWrite = undefined;
}

describe('the lake, exactly once', () => {
  it.each([
    ['A', 'B'],
    ['B', 'A'],
  ])(
    'of two copies that both read "not stored", keeps the one that wrote last (%s held, %s through)',
    async (last, other) => {
      // Prepare: two requests carrying the same 3 uuids (an SDK retry racing its original)
      const uuids = Array.from({ length: 3 }, () => randomUUID());
      const records = { A: recordOf(uuids, 'A'), B: recordOf(uuids, 'B') };

      // Act: `last` reads, `other` reads, writes and hands over, then `last` writes and hands over
      await interleave(records[last as 'A' | 'B'], records[other as 'A' | 'B']);
      const handOffs = takeHandOffs();
      const outcome = await flush(handOffs);

      // Assert: both handed over, delayed by the settle time; the lake holds the stored copy once
      expect(handOffs).toHaveLength(2);
      expect(sent).toEqual([]);
      expect(new Set(handOffs.map((message) => message.source))).toEqual(
        new Set([eventSourceOf(records.A.body), eventSourceOf(records.B.body)]),
      );
      const rows = await lakeRows();
      expect(rows.map((row) => row.uuid).sort()).toEqual([...uuids].sort());
      expect(rows.every((row) => row.copy === last)).toBe(true);
      for (const uuid of uuids)
        expect(await storedCopy(uuid)).toEqual({
          copy: last,
          src: eventSourceOf(records[last as 'A' | 'B'].body),
        });
      expect(outcome).toMatchObject({ written: 3, duplicates: 3, failed: 0 });
    },
  );

  it('hands over with the settle delay; a copy that finds the event stored by another message neither writes nor hands it over', async () => {
    // Prepare: the first copy stored, handed over and written
    const uuids = Array.from({ length: 3 }, () => randomUUID());
    const first = recordOf(uuids, 'first');
    await consume(first);
    expect(sent.map((one) => one.delaySeconds)).toEqual([settleSeconds]);
    await flush(takeHandOffs());
    bed.fake.resetWrites();

    // Act: the SDK's retry, once the first is stored
    await consume(recordOf(uuids, 'retry'));

    // Assert: no event item written, nothing handed over; the item is the copy in the lake
    expect(bed.fake.writes.filter((write) => write.key.startsWith('E#'))).toEqual([]);
    expect(sent).toEqual([]);
    for (const uuid of uuids) expect((await storedCopy(uuid)).copy).toBe('first');
    expect((await lakeRows()).map((row) => row.copy)).toEqual(['first', 'first', 'first']);
  });

  it('writes a redelivered message once, also when its hand-off comes twice and its writer stopped before the commit', async () => {
    // Prepare: a message stored and handed over, the hand-off sent twice (a lost answer)
    const uuids = Array.from({ length: 4 }, () => randomUUID());
    const record = recordOf(uuids, 'only');
    await consume(record);
    const [handOff] = takeHandOffs();

    // Act: both copies in one flush; the same again (a writer that stopped between upload and
    // commit); then the ingest message redelivered and its new hand-off flushed
    const once = await flush([handOff!, handOff!]);
    const again = await flush([handOff!]);
    await consume(record);
    const redelivered = await flush(takeHandOffs());

    // Assert
    expect(once).toMatchObject({ written: 4, failed: 0 });
    expect(again).toMatchObject({ written: 0, duplicates: 4, failed: 0 });
    expect(redelivered).toMatchObject({ written: 0, duplicates: 4, failed: 0 });
    expect((await lakeRows()).map((row) => row.uuid).sort()).toEqual([...uuids].sort());
  });

  it('writes an event once when a redelivery changed its timestamp (another date)', async () => {
    // Prepare: written once under its first timestamp
    const uuid = randomUUID();
    const record = recordOf([uuid], 'only');
    await consume(record);
    const [handOff] = takeHandOffs();
    await flush([handOff!]);

    // Act: a redelivery whose plugin moved the event a day later rewrote the item and handed it over
    const moved = new Date(Date.parse(handOff!.events[0]!.timestamp) + 86_400_000).toISOString();
    const item = await bed.fake.get(consumerTables.eventsTable, keys.event(projectId, uuid));
    await bed.fake.seed(consumerTables.eventsTable, { ...item!, PK: String(item!.PK), SK: 'E', ts: moved });
    const outcome = await flush([{ ...handOff!, events: [{ ...handOff!.events[0]!, timestamp: moved }] }]);

    // Assert: still one row, under the first date
    expect(outcome).toMatchObject({ written: 0, duplicates: 1 });
    expect(await lakeRows()).toHaveLength(1);
  });

  it('leaves a hand-off younger than the settle time in the queue, and writes no event whose item is gone', async () => {
    // Prepare: two messages stored and handed over; one's events deleted since (their project deleted)
    const young = recordOf([randomUUID()], 'young');
    const gone = [randomUUID(), randomUUID()];
    await consume(young);
    const [youngHandOff] = takeHandOffs();
    await consume(recordOf(gone, 'gone'));
    const [goneHandOff] = takeHandOffs();
    for (const uuid of gone)
      await documentClient.send(
        new DeleteCommand({ TableName: consumerTables.eventsTable, Key: keys.event(projectId, uuid) }),
      );

    // Act
    const early = await flush([youngHandOff!], settleSeconds - 5);
    const deleted = await flush([goneHandOff!]);

    // Assert: the young one is neither written nor deleted from the queue; the gone ones not written
    expect(early).toMatchObject({ written: 0, failed: 1 });
    expect(
      sqs.commandCalls(DeleteMessageBatchCommand).flatMap((call) => call.args[0].input.Entries),
    ).toHaveLength(1);
    expect(deleted).toMatchObject({ written: 0, duplicates: 2, failed: 0 });
    expect(objects.size).toBe(0);
  });
});
