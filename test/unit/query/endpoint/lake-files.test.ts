import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { downloadLakeFiles, lakeFilesOf, LakeBudgetError } from '../../../../functions/query/lake-files';

const s3 = mockClient(S3Client);
beforeEach(() => s3.reset());

describe('the files a query reads', () => {
  it("lists its project's prefix only, every page, Parquet files only", async () => {
    s3.on(ListObjectsV2Command)
      .resolvesOnce({
        Contents: [
          { Key: 'events/project_id=7/date=2024-03-04/a.parquet', Size: 10, ETag: '"a"' },
          { Key: 'events/project_id=7/date=2024-03-04/notes.txt', Size: 1, ETag: '"n"' },
        ],
        IsTruncated: true,
        NextContinuationToken: 'next',
      })
      .resolvesOnce({
        Contents: [{ Key: 'events/project_id=7/date=2024-03-05/b.parquet', Size: 20, ETag: '"b"' }],
      });
    const files = await lakeFilesOf('lake', 7);
    expect(files).toEqual([
      { key: 'events/project_id=7/date=2024-03-04/a.parquet', size: 10, etag: '"a"' },
      { key: 'events/project_id=7/date=2024-03-05/b.parquet', size: 20, etag: '"b"' },
    ]);
    const calls = s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input);
    expect(calls).toEqual([
      { Bucket: 'lake', Prefix: 'events/project_id=7/', ContinuationToken: undefined },
      { Bucket: 'lake', Prefix: 'events/project_id=7/', ContinuationToken: 'next' },
    ]);
  });

  /**
   * S3's ListObjectsV2 over `keys`, as S3 answers it: the keys under `Prefix` in order, after
   * `StartAfter` or the continuation token, 1,000 a page.
   */
  function listing(keys: readonly string[]): void {
    const sorted = [...keys].sort();
    s3.on(ListObjectsV2Command).callsFake(
      (input: { Prefix?: string; StartAfter?: string; ContinuationToken?: string }) => {
        const after = input.ContinuationToken ?? input.StartAfter ?? '';
        const matching = sorted.filter((key) => key.startsWith(input.Prefix ?? '') && key > after);
        const page = matching.slice(0, 1000);
        const truncated = matching.length > page.length;
        return {
          Contents: page.map((key) => ({ Key: key, Size: 1, ETag: `"${key}"` })),
          IsTruncated: truncated,
          ...(truncated ? { NextContinuationToken: page.at(-1) } : {}),
        };
      },
    );
  }

  /** `count` consecutive UTC dates from `first`. */
  const datesFrom = (first: string, count: number): string[] =>
    Array.from({ length: count }, (_, day) =>
      new Date(Date.parse(`${first}T00:00:00Z`) + day * 86_400_000).toISOString().slice(0, 10),
    );
  const keysOf = (project: number, dates: readonly string[], perDate: number): string[] =>
    dates.flatMap((date) =>
      Array.from({ length: perDate }, (_, n) => `events/project_id=${project}/date=${date}/f${n}.parquet`),
    );

  it("lists an insight's 62 dates in one request, not one per date, and only those dates", async () => {
    const dates = datesFrom('2024-03-01', 62);
    const inRange = keysOf(7, dates, 3);
    listing([
      ...keysOf(7, datesFrom('2024-01-01', 60), 3),
      ...inRange,
      ...keysOf(7, datesFrom('2024-05-02', 200), 10),
      ...keysOf(8, dates, 3),
      ...keysOf(70, dates, 3),
    ]);
    const files = await lakeFilesOf('lake', 7, dates);
    expect(files.map((file) => file.key)).toEqual(inRange);
    const calls = s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input);
    expect(calls).toEqual([
      { Bucket: 'lake', Prefix: 'events/project_id=7/', StartAfter: 'events/project_id=7/date=2024-03-01' },
    ]);
  });

  it('pages through a range of more than 1,000 keys, and skips the dates in it the query does not need', async () => {
    const dates = datesFrom('2024-03-01', 30);
    listing(keysOf(7, datesFrom('2024-03-01', 40), 50));
    const needed = dates.filter((_, day) => day % 2 === 0);
    const files = await lakeFilesOf('lake', 7, needed);
    expect(files.map((file) => file.key)).toEqual(keysOf(7, needed, 50).sort());
    // 29 days of 50 keys from the first date to the last: 1,450 keys, two pages.
    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(2);
    expect(await lakeFilesOf('lake', 7, [])).toEqual([]);
  });

  it('downloads within the byte budget, keeping the keys as paths', async () => {
    s3.on(GetObjectCommand).callsFake(async (input: { Key: string }) => ({
      Body: Readable.from([Buffer.from(`body of ${input.Key}`)]),
    }));
    const dir = await mkdtemp(join(tmpdir(), 'flock-query-test-'));
    try {
      const key = 'events/project_id=7/date=2024-03-04/a.parquet';
      const paths = await downloadLakeFiles('lake', [{ key, size: 10, etag: '' }], dir, 10, 2);
      expect(paths).toEqual([join(dir, key)]);
      expect(await readFile(paths[0]!, 'utf8')).toBe(`body of ${key}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a query past the byte budget with a 400 naming both figures, before any download', async () => {
    const files = [
      { key: 'events/project_id=7/date=2024-03-04/a.parquet', size: 3 * 1024 * 1024, etag: '' },
      { key: 'events/project_id=7/date=2024-03-05/b.parquet', size: 2 * 1024 * 1024, etag: '' },
    ];
    const refused = downloadLakeFiles('lake', files, '/nonexistent', 4 * 1024 * 1024, 2);
    await expect(refused).rejects.toBeInstanceOf(LakeBudgetError);
    await expect(refused).rejects.toMatchObject({
      statusCode: 400,
      code: 'query_too_large',
      detail: expect.stringContaining('5.0 MB of events, more than the 4.0 MB'),
    });
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });
});
