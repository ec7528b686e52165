import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { lakeFileKey } from '../lake/layout';
import { documentClient } from './client';
import { keys } from './keys';
import { conditionally } from './operations';

/**
 * The lake writer's half of exactly once (docs/lake.md): a claim per (project, source), item
 * `LAKE#<project>#<source>`, recording which of that source's events are in the lake. The consumer's
 * half (consumer/lake-sources.ts) and the settle check (lake/settle.ts) see to it that an event
 * reaches the writer from one source only; this claim sees to it that the source's copies (the ingest
 * message redelivered after a hand-off, a hand-off sent twice, a lake message received again after
 * its writer stopped between upload and commit, a redrive) are written once.
 *
 * - `written`: digests of the source's events in files known to exist;
 * - `flush` and `pending`: the events claimed by the last flush that took the claim, by date (its
 *   files are `lakeFileKey(project, date, flush)`), written before those files are uploaded;
 * - `until`: when that flush's writer no longer holds its messages (the time it received them, plus
 *   the visibility timeout, which is longer than the lake function's timeout).
 *
 * The source handed over again finds the claim: the pending events of files that exist (or that a
 * compaction merged) join `written`, and only events in neither are written, by the new flush; a file
 * that does not exist means its writer stopped before the upload, and once `until` has passed its
 * events are claimed again. Every move is conditional on the `flush` read, so two writers never both
 * take it. Per source, not per date: a plugin that changes an event's timestamp on a redelivery
 * moves it to another date, and the claim still knows it.
 *
 * One conditional UpdateItem per source per flush (instead of one per event): the digests are 8
 * bytes each, so a claim of 50 events is about 0.5 KB, one write unit.
 *
 * Claims expire after `lakeMemoryDays`, longer than any copy can arrive (queue retention 4 days,
 * DLQ 14 days, redriven at most once in that time).
 */

export const lakeMemoryDays = 21;
/** Bytes of an event's digest: SHA-256 of its uuid, truncated (no collision within a source's events). */
const digestBytes = 8;

export interface LakeClaimRequest {
  /** The ingest message the events came from (consumer/lake-sources.ts). */
  readonly source: string;
  /** The flush that means to write them: its files are `lakeFileKey(project, date, flush)`. */
  readonly flush: string;
  /** The events' uuids by the UTC date of their timestamps. */
  readonly dates: ReadonlyMap<string, readonly string[]>;
}

/** What the writer is to do with a source's events. */
export type LakeClaimOutcome =
  /** Claimed for the flush: write these (the others are in the lake already). */
  | { readonly kind: 'write'; readonly uuids: ReadonlySet<string> }
  /** Claimed by a flush another writer may still be uploading: leave the messages for later. */
  | { readonly kind: 'busy' };

export interface LakeClaimOptions {
  readonly now: Date;
  /** Epoch ms until which this writer holds the messages (received at, plus the visibility timeout). */
  readonly heldUntil: number;
  readonly fileExists: (key: string) => Promise<boolean>;
}

interface ClaimItem {
  readonly flush: string;
  readonly until: number;
  readonly written?: Uint8Array;
  readonly pending?: Readonly<Record<string, Uint8Array>>;
}

const digestOf = (uuid: string): string =>
  createHash('sha256').update(uuid).digest().subarray(0, digestBytes).toString('hex');

const packed = (digests: Iterable<string>): Uint8Array => Buffer.from([...digests].join(''), 'hex');

function unpacked(bytes: Uint8Array | undefined): string[] {
  if (!bytes) return [];
  const hex = Buffer.from(bytes).toString('hex');
  const digests: string[] = [];
  for (let at = 0; at < hex.length; at += digestBytes * 2) digests.push(hex.slice(at, at + digestBytes * 2));
  return digests;
}

const expiresIn = (now: Date): number => Math.floor(now.getTime() / 1000) + lakeMemoryDays * 86_400;

/** Sets the claim to `request.flush` with these sets, if `previousFlush` is still the one it names (or none). */
function setClaim(
  tableName: string,
  projectId: number,
  request: LakeClaimRequest,
  options: LakeClaimOptions,
  written: Iterable<string>,
  pending: ReadonlyMap<string, readonly string[]>,
  previousFlush: string | undefined,
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.lakeClaim(projectId, request.source),
        UpdateExpression:
          'SET #flush = :flush, #until = :until, written = :written, pending = :pending, expires = :expires',
        ConditionExpression: previousFlush === undefined ? 'attribute_not_exists(PK)' : '#flush = :previous',
        ExpressionAttributeNames: { '#flush': 'flush', '#until': 'until' },
        ExpressionAttributeValues: {
          ':flush': request.flush,
          ':until': options.heldUntil,
          ':written': packed(written),
          ':pending': Object.fromEntries([...pending].map(([date, digests]) => [date, packed(digests)])),
          ':expires': expiresIn(options.now),
          ...(previousFlush === undefined ? {} : { ':previous': previousFlush }),
        },
      }),
    ),
  );
}

/** Claims a source's events for `request.flush` (see the module's comment). */
export async function claimLakeSource(
  tableName: string,
  projectId: number,
  request: LakeClaimRequest,
  options: LakeClaimOptions,
): Promise<LakeClaimOutcome> {
  const uuidOf = new Map<string, string>();
  const requested = new Map<string, string[]>();
  for (const [date, uuids] of request.dates) {
    const digests = uuids.map(digestOf);
    digests.forEach((digest, at) => uuidOf.set(digest, uuids[at]!));
    requested.set(date, digests);
  }
  if (await setClaim(tableName, projectId, request, options, [], requested, undefined))
    return { kind: 'write', uuids: new Set(uuidOf.values()) };
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.lakeClaim(projectId, request.source),
      ConsistentRead: true,
    }),
  );
  const claim = Item as ClaimItem | undefined;
  // Expired and removed meanwhile: a later pass claims afresh.
  if (!claim) return { kind: 'busy' };
  const written = new Set(unpacked(claim.written));
  let unfinished = false;
  for (const [date, digests] of Object.entries(claim.pending ?? {})) {
    if (await options.fileExists(lakeFileKey(projectId, date, claim.flush)))
      for (const digest of unpacked(digests)) written.add(digest);
    else unfinished = true;
  }
  if (unfinished && options.now.getTime() < claim.until) return { kind: 'busy' };
  const fresh = new Map<string, string[]>();
  for (const [date, digests] of requested) {
    const left = digests.filter((digest) => !written.has(digest));
    if (left.length > 0) fresh.set(date, left);
  }
  if (fresh.size === 0) return { kind: 'write', uuids: new Set() };
  const moved = await setClaim(tableName, projectId, request, options, written, fresh, claim.flush);
  return moved
    ? { kind: 'write', uuids: new Set([...fresh.values()].flat().map((digest) => uuidOf.get(digest)!)) }
    : { kind: 'busy' };
}
