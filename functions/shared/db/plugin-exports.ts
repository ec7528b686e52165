import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../concurrency';
import { documentClient } from './client';
import { keys } from './keys';
import { batchGetItems, batchPutEvery, conditionally } from './operations';

/**
 * What makes an export exactly-once (docs/plugins.md "Exports"), and what it delivered.
 *
 * - A claim per (config, event uuid): taken with a condition by the first ingest message that hands
 *   the event over (`source`). The same message delivered again holds the claim already; another
 *   message carrying the same uuid (an SDK retry, a beacon) does not get it, so its copy is skipped.
 * - A done item per exports message (named by a hash of its config, source and events): written once
 *   the object holding its events is in S3, so a redelivered exports message uploads nothing.
 * Both expire after `exportMemoryDays`, longer than any duplicate can arrive (queue retention 4 days,
 * DLQ 14 days, both redriven at most once in that time).
 * - Delivery counters: events delivered and failed per (config, UTC hour), for `delivery_rate_24h`.
 */

export const exportMemoryDays = 21;
const counterDays = 2;
/** Claims written at once: one conditional UpdateItem each. */
const claimsInFlight = 16;

const expiresIn = (now: Date, days: number): number => Math.floor(now.getTime() / 1000) + days * 86_400;

/** The uuids among `uuids` that `source` holds the claim of (taking the unclaimed ones). */
export async function claimEvents(
  tableName: string,
  configId: number,
  source: string,
  uuids: readonly string[],
  now: Date,
): Promise<Set<string>> {
  const claimed = new Set<string>();
  await forEachLimited([...new Set(uuids)], claimsInFlight, async (uuid) => {
    const won = await conditionally(() =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.pluginExportClaim(configId, uuid),
          UpdateExpression: 'SET #source = :source, expires = :expires',
          ConditionExpression: 'attribute_not_exists(PK) OR #source = :source',
          ExpressionAttributeNames: { '#source': 'source' },
          ExpressionAttributeValues: { ':source': source, ':expires': expiresIn(now, exportMemoryDays) },
        }),
      ),
    );
    if (won) claimed.add(uuid);
  });
  return claimed;
}

/** Which of the exports messages (by hash) were exported already. */
export async function exportedMessages(
  tableName: string,
  configId: number,
  hashes: readonly string[],
): Promise<Set<string>> {
  const items = await batchGetItems<{ hash: string }>(
    tableName,
    hashes.map((hash) => keys.pluginExportDone(configId, hash)),
    true,
  );
  return new Set(items.map((item) => item.hash));
}

/** Records exports messages as exported; throws if some could not be recorded. */
export async function markExported(
  tableName: string,
  configId: number,
  hashes: readonly string[],
  now: Date,
): Promise<void> {
  await batchPutEvery(
    tableName,
    hashes.map((hash) => ({
      item: { ...keys.pluginExportDone(configId, hash), hash, expires: expiresIn(now, exportMemoryDays) },
      tag: hash,
    })),
  );
}

/** `YYYY-MM-DDTHH` (UTC): the counters' bucket. */
const hourOf = (time: Date): string => time.toISOString().slice(0, 13);

/** Adds to the config's delivered and failed counts of this hour. */
export async function countDeliveries(
  tableName: string,
  projectId: number,
  configId: number,
  counts: { readonly delivered: number; readonly failed: number },
  now: Date,
): Promise<void> {
  if (counts.delivered === 0 && counts.failed === 0) return;
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.pluginDeliveries(projectId, configId, hourOf(now)),
      UpdateExpression: 'ADD delivered :delivered, failed :failed SET expires = :expires',
      ExpressionAttributeValues: {
        ':delivered': counts.delivered,
        ':failed': counts.failed,
        ':expires': expiresIn(now, counterDays),
      },
    }),
  );
}

/**
 * delivered / (delivered + failed) over the last 24 hours (the current hour and the 23 before it), or
 * null when nothing was exported in them, as PostHog answers for a config without export metrics.
 */
export async function deliveryRate24h(
  tableName: string,
  projectId: number,
  configId: number,
  now: Date = new Date(),
): Promise<number | null> {
  const from = keys.pluginDeliveries(projectId, configId, hourOf(new Date(now.getTime() - 23 * 3_600_000)));
  const to = keys.pluginDeliveries(projectId, configId, hourOf(now));
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': from.PK, ':from': from.SK, ':to': to.SK },
    }),
  );
  let delivered = 0;
  let failed = 0;
  for (const item of Items) {
    delivered += Number(item.delivered ?? 0);
    failed += Number(item.failed ?? 0);
  }
  return delivered + failed === 0 ? null : delivered / (delivered + failed);
}
