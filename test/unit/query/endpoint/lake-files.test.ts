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

  it("lists only the dates' partitions when the query's dates are known", async () => {
    s3.on(ListObjectsV2Command).resolves({ Contents: [] });
    await lakeFilesOf('lake', 7, ['2024-03-04', '2024-03-05']);
    expect(s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input.Prefix)).toEqual([
      'events/project_id=7/date=2024-03-04/',
      'events/project_id=7/date=2024-03-05/',
    ]);
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
