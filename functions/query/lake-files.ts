import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { forEachLimited } from '../shared/concurrency';
import { ValidationError } from '../shared/http/errors';
import { lakePartitionPrefix, lakeProjectPrefix } from '../shared/lake/layout';
import { readableKeys } from '../shared/lake/listing';
import { lakeS3 } from '../lake/s3';

/** One Parquet file of the lake, as the listing shows it. */
export interface LakeFile {
  readonly key: string;
  readonly size: number;
  /** Changes whenever the object is rewritten (a compaction replacing a file keeps no key). */
  readonly etag: string;
}

/**
 * The files a reader reads for `projectId`, by the lake's listing rule (functions/shared/lake/listing.ts:
 * a compacted partition's newest committed files and the flush files after its cutoff, each row once)
 * under the project's prefix, or, when the query's dates are known, in those dates' partitions only.
 * Nothing outside `events/project_id=<id>/` is ever listed, so another project's files are never
 * downloaded.
 *
 * The dates' partitions are listed in one walk, not one listing per date (up to 62 for an insight):
 * keys sort by date (`date=YYYY-MM-DD/`), so the listing starts after the first date's prefix less its
 * slash (`StartAfter`) and stops at the first key past the last date's partition; a key of a date in
 * between that the query does not need is skipped. A range of days costs one request per 1,000 keys.
 */
export async function lakeFilesOf(
  bucket: string,
  projectId: number,
  dates?: readonly string[],
): Promise<LakeFile[]> {
  const projectPrefix = lakeProjectPrefix(projectId);
  const wanted = dates && new Set(dates.map((date) => lakePartitionPrefix(projectId, date)));
  const range = wanted && [...wanted].sort();
  if (range?.length === 0) return [];
  const listed = new Map<string, LakeFile>();
  const lastPartition = range?.at(-1);
  let token: string | undefined;
  let done = false;
  do {
    const page = await lakeS3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: projectPrefix,
        ...(token ? { ContinuationToken: token } : range ? { StartAfter: range[0]!.slice(0, -1) } : {}),
      }),
    );
    for (const object of page.Contents ?? []) {
      const key = object.Key;
      if (!key) continue;
      if (lastPartition && key > lastPartition && !key.startsWith(lastPartition)) {
        done = true;
        break;
      }
      if (wanted && !wanted.has(key.slice(0, key.indexOf('/', projectPrefix.length) + 1))) continue;
      listed.set(key, { key, size: object.Size ?? 0, etag: object.ETag ?? '' });
    }
    token = !done && page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return readableKeys([...listed.keys()]).map((key) => listed.get(key)!);
}

/**
 * What the files read are, as one hash: their keys and etags. A file added, rewritten or compacted
 * away changes it, so a result cached under it is never served for other data.
 */
export function lakeStateOf(files: readonly LakeFile[]): string {
  const lines = files.map((file) => `${file.key}\t${file.etag}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** A query past what one query may read: PostHog's 400 `query_too_large`, `detail` saying which bound. */
export class QueryTooLargeError extends ValidationError {
  constructor(detail: string) {
    super('query_too_large', `${detail} Narrow its date range.`, 'query');
  }
}

/** A query whose files are more than one function may read: a 400 naming both figures. */
export class LakeBudgetError extends QueryTooLargeError {
  constructor(bytes: number, budget: number) {
    const mb = (value: number): string => `${(value / 1024 / 1024).toFixed(1)} MB`;
    super(`The query would read ${mb(bytes)} of events, more than the ${mb(budget)} one query may read.`);
  }
}

/** A query Athena cancelled at the workgroup's bytes-scanned limit: a 400, as a query past the budget. */
export class AthenaScanLimitError extends QueryTooLargeError {
  constructor() {
    super("The query would scan more of the lake than one query may (the Athena workgroup's limit).");
  }
}

/**
 * Downloads `files` under `dir` (keeping their keys as paths, so the Hive partitions stay readable),
 * refusing before any download when their bytes pass `maxBytes`. Answers the local paths.
 */
export async function downloadLakeFiles(
  bucket: string,
  files: readonly LakeFile[],
  dir: string,
  maxBytes: number,
  concurrency: number,
): Promise<string[]> {
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  if (bytes > maxBytes) throw new LakeBudgetError(bytes, maxBytes);
  const paths = files.map((file) => join(dir, file.key));
  await forEachLimited(
    files.map((file, index) => ({ file, path: paths[index]! })),
    concurrency,
    async ({ file, path }) => {
      const object = await lakeS3.send(new GetObjectCommand({ Bucket: bucket, Key: file.key }));
      await mkdir(dirname(path), { recursive: true });
      await pipeline(object.Body as Readable, createWriteStream(path));
    },
  );
  return paths;
}
