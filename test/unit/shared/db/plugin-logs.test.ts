import type { PluginLogEntry } from '../../../../functions/shared/db/plugin-logs';
import {
  maxExamined,
  pluginLogPut,
  putPluginLogEntries,
  readPluginLogs,
} from '../../../../functions/shared/db/plugin-logs';
import { DynaliteTables } from '../../../helpers/dynalite-tables';

const table = 'main';
const now = new Date('2024-03-10T12:00:00.000Z');
let fake: DynaliteTables;

beforeEach(async () => {
  fake = await DynaliteTables.start([table]);
});

afterEach(async () => {
  await fake.stop();
});

let sequence = 0;
function entry(minutesAgo: number, fields: Partial<PluginLogEntry> = {}): PluginLogEntry {
  const n = ++sequence;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    team_id: 7,
    plugin_id: 2,
    plugin_config_id: 3,
    timestamp: new Date(now.getTime() - minutesAgo * 60_000).toISOString(),
    source: 'PLUGIN',
    type: 'ERROR',
    message: `failure ${n}`,
    instance_id: '00000000-0000-4000-8000-000000000000',
    ...fields,
  };
}

async function store(entries: PluginLogEntry[]): Promise<void> {
  const failed = await putPluginLogEntries(
    table,
    entries.map((e) => pluginLogPut(e, e.id)),
  );
  expect(failed.size).toBe(0);
}

const read = (filter: Parameters<typeof readPluginLogs>[3], page = { offset: 0, limit: 100 }) =>
  readPluginLogs(table, 7, 3, filter, page, now);

describe('plugin log entries', () => {
  it('reads newest first, applies offset and limit once, and counts every match', async () => {
    const entries = [entry(30), entry(10), entry(20), entry(1)];
    await store(entries);
    const all = await read({ types: [] });
    expect(all.count).toBe(4);
    expect(all.entries.map((e) => e.timestamp)).toEqual(
      entries
        .map((e) => e.timestamp)
        .sort()
        .reverse(),
    );
    const page = await read({ types: [] }, { offset: 1, limit: 2 });
    expect(page).toEqual({ count: 4, entries: all.entries.slice(1, 3) });
  });

  it('filters by type, by message (case-insensitive), and strictly by time', async () => {
    const warn = entry(5, { type: 'WARN', message: 'Slow Upload' });
    const error = entry(10);
    const info = entry(15, { type: 'INFO', source: 'CONSOLE' });
    await store([warn, error, info]);
    expect((await read({ types: ['WARN', 'INFO'] })).entries).toEqual([warn, info]);
    expect((await read({ types: [], search: 'slow up' })).entries).toEqual([warn]);
    expect((await read({ types: [], after: new Date(error.timestamp) })).entries).toEqual([warn]);
    expect((await read({ types: [], before: new Date(error.timestamp) })).entries).toEqual([info]);
    expect(
      await read({ types: [], after: new Date(warn.timestamp), before: new Date(info.timestamp) }),
    ).toEqual({
      entries: [],
      count: 0,
    });
  });

  it('skips entries past the 7 days kept, whether or not DynamoDB has deleted them yet', async () => {
    const old = entry(7 * 24 * 60 + 1);
    const recent = entry(60);
    await store([old, recent]);
    const items = await fake.items(table);
    const stored = [...items.values()].find((item) => item.id === recent.id)!;
    expect(stored.expires).toBe(Math.floor(Date.parse(recent.timestamp) / 1000) + 7 * 86_400);
    expect(await read({ types: [] })).toEqual({ entries: [recent], count: 1 });
  });

  it('reads at most a bounded number of entries: past it, count is null rather than a guess', async () => {
    // Prepare: the entries as `pluginLogPut` lays them out, put straight into the table, 25 a request
    // (the tests above store theirs through `putPluginLogEntries`).
    const entries = Array.from({ length: maxExamined + 10 }, (_, i) => entry(i / 100));
    await fake.seedAll(
      table,
      entries.map((e) => pluginLogPut(e, e.id).item),
    );

    const page = await read({ types: [] }, { offset: 0, limit: 10 });
    expect(page.entries).toHaveLength(10);
    expect(page.count).toBeNull();
    const matchingFew = await read({ types: ['DEBUG'] });
    expect(matchingFew.count).toBeNull();
  });
});
