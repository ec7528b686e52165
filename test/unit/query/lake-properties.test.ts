import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parquetOf } from '../../../functions/lake/parquet';
import { withLakeDatabase } from '../../../functions/query/database';
import { lakeFileKey } from '../../../functions/shared/lake/layout';
import type { LakeEvent } from '../../../functions/shared/lake/row';
import { lakeRowOf } from '../../../functions/shared/lake/row';
import { runHogQL } from '../../../functions/shared/query/execute';
import { compileHogQL } from '../../../functions/shared/query/hogql/compile';
import { writeVersionOneFile } from '../lake/version-one-file';

/**
 * Properties a lake column holds exactly are left out of the stored JSON (schema version 2); HogQL
 * reads them as sent, from files of version 2 and of version 1 (text UUIDs, every property in the
 * JSON) side by side, as the query function's relation reads a lake written before and after.
 */

const session = '0190a1b2-0000-7000-8000-0000000000aa';
const sent = (uuid: string, sessionId: unknown): LakeEvent => ({
  uuid,
  event: '$pageview',
  distinct_id: 'u1',
  timestamp: '2024-03-05T10:00:00.000Z',
  created_at: '2024-03-05T10:00:00.000Z',
  properties: { $session_id: sessionId, $browser: 'Firefox', $os: 7, plan: 'pro' },
  elements_chain: '',
  person_id: null,
  person_properties: null,
});

const events = [
  sent('0190a1b2-0000-7000-8000-000000000001', session),
  sent('0190a1b2-0000-7000-8000-000000000002', 'not-a-uuid'),
];

let root: string;
const paths: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'flock-lake-properties-'));
  for (const [index, item] of events.entries()) {
    const v2 = join(root, lakeFileKey(7, '2024-03-05', `v2-${index}`));
    const v1 = join(root, lakeFileKey(7, '2024-03-04', `v1-${index}`));
    await mkdir(dirname(v2), { recursive: true });
    await mkdir(dirname(v1), { recursive: true });
    await writeFile(v2, await parquetOf([lakeRowOf(item, {}, new Date(item.timestamp))]));
    await writeVersionOneFile(v1, [item]);
    paths.push(v2, v1);
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

const run = (text: string) =>
  withLakeDatabase(root, paths, 'UTC', async (connection) =>
    runHogQL(connection, await compileHogQL(text, { projectId: 7 }), 'UTC'),
  );

describe('lake properties held by columns', () => {
  it('reads properties whole, one by one and as columns the same from files of both versions', async () => {
    const result = await run(
      'select uuid, properties, properties.$session_id, $session_id, properties.$browser, properties.$os, ' +
        'properties.plan from events order by uuid',
    );
    expect(result.results).toHaveLength(4);
    for (const row of result.results) {
      const item = events.find((candidate) => candidate.uuid === row[0])!;
      const properties = item.properties as { $session_id: string };
      expect(JSON.parse(row[1] as string)).toEqual(item.properties);
      expect(row.slice(2)).toEqual([properties.$session_id, properties.$session_id, 'Firefox', '7', 'pro']);
    }
  });

  it('filters on a property held by a column and on one in the JSON', async () => {
    const result = await run(
      `select count() from events where properties.$session_id = '${session}' and properties.plan = 'pro'`,
    );
    expect(result.results).toEqual([[2]]);
  });
});
