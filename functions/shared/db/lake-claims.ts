import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../concurrency';
import { documentClient } from './client';
import { keys } from './keys';
import { conditionally } from './operations';

/**
 * What makes the lake exactly-once (docs/lake.md): a claim per (project, event uuid) naming the
 * ingest message that handed the event over first (`source`) and the lake file meant to hold it
 * (`file`), written before that file is uploaded.
 *
 * - Another message carrying the same uuid (an SDK retry, a beacon) finds the claim held by another
 *   source: its copy is a duplicate and is left out.
 * - The same source again (the ingest message redelivered, or the lake message received again) finds
 *   its own claim: if the claim's file exists, the event is in the lake already; if it does not, the
 *   writer that claimed it stopped before its upload, and once that writer's hold on the message is
 *   surely over (`until`: when it received the message, plus the visibility timeout, which is longer
 *   than the lake function's timeout) the claim is moved to the new file.
 *
 * Claims expire after `lakeMemoryDays`, longer than any duplicate can arrive (queue retention 4 days,
 * DLQ 14 days, redriven at most once in that time).
 */

export const lakeMemoryDays = 21;
/** Claims written at once: one conditional UpdateItem each. */
const claimsInFlight = 32;

/** What became of an event the writer meant to put in a file. */
export type LakeClaimOutcome =
  /** Claimed for the file: write it there. */
  | 'write'
  /** Claimed by this source, in a file that exists: in the lake already. */
  | 'written'
  /** Claimed by another source: a second copy of an event already handed over. */
  | 'duplicate'
  /** Claimed by this source for a file another writer may still be uploading: try again later. */
  | 'busy';

interface ClaimItem {
  readonly source: string;
  readonly file: string;
  /** Epoch ms after which the writer that claimed it no longer holds its message. */
  readonly until: number;
}

export interface LakeClaimRequest {
  readonly uuid: string;
  /** The key of the lake file the event is meant for. */
  readonly file: string;
}

const expiresIn = (now: Date): number => Math.floor(now.getTime() / 1000) + lakeMemoryDays * 86_400;

async function setClaim(
  tableName: string,
  projectId: number,
  source: string,
  request: LakeClaimRequest,
  options: LakeClaimOptions,
  condition: { readonly expression: string; readonly values: Record<string, unknown> },
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.lakeClaim(projectId, request.uuid),
        UpdateExpression: 'SET #source = :source, #file = :file, #until = :until, expires = :expires',
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: { '#source': 'source', '#file': 'file', '#until': 'until' },
        ExpressionAttributeValues: {
          ':source': source,
          ':file': request.file,
          ':until': options.heldUntil,
          ':expires': expiresIn(options.now),
          ...condition.values,
        },
      }),
    ),
  );
}

export interface LakeClaimOptions {
  readonly now: Date;
  /** Epoch ms until which this writer holds the message (received at, plus the visibility timeout). */
  readonly heldUntil: number;
  readonly fileExists: (key: string) => Promise<boolean>;
}

/** One event's claim (see the module's comment). */
async function claimOne(
  tableName: string,
  projectId: number,
  source: string,
  request: LakeClaimRequest,
  options: LakeClaimOptions,
): Promise<LakeClaimOutcome> {
  if (
    await setClaim(tableName, projectId, source, request, options, {
      expression: 'attribute_not_exists(PK)',
      values: {},
    })
  )
    return 'write';
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.lakeClaim(projectId, request.uuid),
      ConsistentRead: true,
    }),
  );
  const claim = Item as ClaimItem | undefined;
  // Expired and removed meanwhile: another pass claims it afresh.
  if (!claim) return 'busy';
  if (claim.source !== source) return 'duplicate';
  if (claim.file === request.file) return 'write';
  if (await options.fileExists(claim.file)) return 'written';
  if (options.now.getTime() < claim.until) return 'busy';
  const movedOver = await setClaim(tableName, projectId, source, request, options, {
    expression: '#file = :previous',
    values: { ':previous': claim.file },
  });
  return movedOver ? 'write' : 'busy';
}

/** The outcome of each requested event's claim, by uuid. */
export async function claimLakeEvents(
  tableName: string,
  projectId: number,
  source: string,
  requests: readonly LakeClaimRequest[],
  options: LakeClaimOptions,
): Promise<Map<string, LakeClaimOutcome>> {
  const outcomes = new Map<string, LakeClaimOutcome>();
  await forEachLimited(requests, claimsInFlight, async (request) => {
    outcomes.set(request.uuid, await claimOne(tableName, projectId, source, request, options));
  });
  return outcomes;
}
