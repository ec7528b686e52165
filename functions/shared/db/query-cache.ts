import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';

/**
 * The query API's result cache: one item per cache key (`cache_<project>_<sha256>`, whose hash covers
 * the query, the project's timezone and the lake state the query read), so new lake files make a new
 * key and a stale result is never served for new data. Lambda functions share no memory: the item
 * lives in the single table, under its own partition (`QCACHE#<key>`, the only one the query
 * function may put), and expires by DynamoDB's TTL (`expires`); reads check the time themselves, as
 * the TTL removes items only eventually. Keys live here, not in keys.ts: nothing else reads them.
 */

export const queryCacheBounds = {
  /**
   * The largest result cached (UTF-8 bytes of its JSON): a DynamoDB item holds at most 400 KB. A
   * larger result is answered and not cached.
   */
  maxBytes: 350_000,
  /** How long an item is kept: past it the result is recomputed whatever its freshness. */
  ttlSeconds: 24 * 3600,
} as const;

/** A cached result: the kind's fields and the HogQL text shown, as computed at `lastRefresh`. */
export interface CachedQuery {
  readonly result: Record<string, unknown>;
  readonly hogql: string | null;
  readonly lastRefresh: Date;
}

const itemKey = (cacheKey: string) => ({ PK: `QCACHE#${cacheKey}`, SK: 'QCACHE' });

/** The cached result of `cacheKey`, unless there is none or it has expired at `now`. */
export async function getCachedQuery(
  tableName: string,
  cacheKey: string,
  now: Date,
): Promise<CachedQuery | undefined> {
  const { Item: item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: itemKey(cacheKey) }),
  );
  if (!item || typeof item.body !== 'string' || typeof item.last_refresh !== 'string') return undefined;
  if (typeof item.expires === 'number' && item.expires * 1000 <= now.getTime()) return undefined;
  const { result, hogql } = JSON.parse(item.body) as {
    result: Record<string, unknown>;
    hogql: string | null;
  };
  return { result, hogql, lastRefresh: new Date(item.last_refresh) };
}

/** Caches `entry` under `cacheKey`; answers false (nothing written) when it is too large to cache. */
export async function putCachedQuery(
  tableName: string,
  cacheKey: string,
  entry: CachedQuery,
): Promise<boolean> {
  const body = JSON.stringify({ result: entry.result, hogql: entry.hogql });
  if (Buffer.byteLength(body) > queryCacheBounds.maxBytes) return false;
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...itemKey(cacheKey),
        body,
        last_refresh: entry.lastRefresh.toISOString(),
        expires: Math.floor(entry.lastRefresh.getTime() / 1000) + queryCacheBounds.ttlSeconds,
      },
    }),
  );
  return true;
}
