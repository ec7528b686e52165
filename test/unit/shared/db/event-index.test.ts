import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { IndexPageItem } from '../../../../functions/shared/db/event-index';
import type { ReadBounds } from '../../../../functions/shared/db/event-index';
import { compareNewestFirst, entriesOfPage, readEntries } from '../../../../functions/shared/db/event-index';
import { comparisonsOf } from '../../../helpers/comparisons';
import { buildIndexPages } from '../../../helpers/index-pages';
import { itemSize } from '../../../helpers/dynalite-tables';

const dynamodb = mockClient(DynamoDBDocumentClient);
const index = { name: 'all', shards: 2 };
const uuid = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const at = (minute: number, second = 0) => new Date(Date.UTC(2026, 10, 21, 10, minute, second)).toISOString();

/** Serves Query calls from a fake partition → pages map, newest max first, honouring the SK bound. */
function serve(pages: IndexPageItem[]) {
  dynamodb
    .on(QueryCommand)
    .callsFake((input: { ExpressionAttributeValues: Record<string, string>; Limit: number }) => {
      const pk = input.ExpressionAttributeValues[':pk'];
      const upper = input.ExpressionAttributeValues[':upper'];
      const items = pages
        .filter((page) => page.PK === pk && (upper === undefined || page.SK < upper))
        .sort((a, b) => (a.SK < b.SK ? 1 : -1));
      return { Items: items };
    });
}

describe('buildIndexPages', () => {
  it('lists one message’s events per minute, newest first, with the max timestamp leading the sort key', () => {
    const entries = new Map([
      [
        '',
        [
          { timestamp: at(1, 5), uuid: uuid(1) },
          { timestamp: at(1, 50), uuid: uuid(2) },
          { timestamp: at(2, 0), uuid: uuid(3) },
        ],
      ],
    ]);
    const pages = buildIndexPages(7, index, 'msg-1', entries);
    expect(pages).toHaveLength(2);
    const first = pages.find((page) => page.max === at(1, 50))!;
    expect(first.entries!.split('\n')).toEqual([`${at(1, 50)} ${uuid(2)}`, `${at(1, 5)} ${uuid(1)}`]);
    expect(first.SK.startsWith(at(1, 50))).toBe(true);
    expect(first.PK).toMatch(/^I#7#all#[01]#$/);
    // Its entry count, so that a skip counts the page without reading its entries.
    expect(pages.map((page) => page.n).sort()).toEqual([1, 2]);
  });

  it('stores a busy page’s entries deflated, in under 40% of the text’s size, and reads them back', () => {
    // Prepare: 600 events of one minute, as a busy delivery lists them in its page of every event.
    const listed = Array.from({ length: 600 }, (_, n) => ({ timestamp: at(4, n % 60), uuid: uuid(n) }));
    const text = [...listed]
      .sort((a, b) =>
        a.timestamp === b.timestamp ? b.uuid.localeCompare(a.uuid) : a.timestamp < b.timestamp ? 1 : -1,
      )
      .map((entry) => `${entry.timestamp} ${entry.uuid}`)
      .join('\n');

    // Act
    const [page] = buildIndexPages(7, index, 'msg-3', new Map([['', listed]]));

    // Assess: a third of the text or less, read back entry for entry, newest first.
    const { ez, ...rest } = page!;
    expect(page!.entries).toBeUndefined();
    expect(itemSize({ ...page })).toBeLessThan(itemSize({ ...rest, entries: text }) * 0.4);
    expect(ez).toBeInstanceOf(Uint8Array);
    expect(
      entriesOfPage(page!)
        .map((entry) => `${entry.timestamp} ${entry.uuid}`)
        .join('\n'),
    ).toBe(text);
  });

  it('reads pages written with their entries as text', () => {
    const page = { entries: `${at(5, 1)} ${uuid(2)}\n${at(5, 0)} ${uuid(1)}` };
    expect(entriesOfPage(page)).toEqual([
      { timestamp: at(5, 1), uuid: uuid(2) },
      { timestamp: at(5, 0), uuid: uuid(1) },
    ]);
  });

  it('gives the same keys when the same message is processed again', () => {
    const entries = new Map([['', [{ timestamp: at(3), uuid: uuid(9) }]]]);
    expect(buildIndexPages(7, index, 'msg-2', entries)).toEqual(buildIndexPages(7, index, 'msg-2', entries));
  });
});

/** The newest entries of the whole project (index value ''). */
const readNewestEntries = (limit: number, bounds: ReadBounds = {}) =>
  readEntries({ tableName: 't', projectId: 7, index, values: [''], limit, bounds });

describe('reading newest first', () => {
  beforeEach(() => dynamodb.reset());

  const messagePages = (owner: string, minutes: number[]) =>
    buildIndexPages(
      7,
      index,
      owner,
      new Map([['', minutes.map((m, i) => ({ timestamp: at(m, i), uuid: uuid(m * 100 + i) }))]]),
    );

  it('merges the shards newest first', async () => {
    serve([...messagePages('a', [1, 3]), ...messagePages('b', [2, 4]), ...messagePages('c', [5])]);
    const entries = await readNewestEntries(3);
    expect(entries.map((entry) => entry.timestamp)).toEqual([at(5, 0), at(4, 1), at(3, 1)]);
  });

  it('stops reading once no unread page can hold a newer entry', async () => {
    serve(Array.from({ length: 20 }, (_, i) => messagePages(`m${i}`, [i])).flat());
    const entries = await readNewestEntries(2);
    expect(entries).toHaveLength(2);
    const calls = dynamodb.commandCalls(QueryCommand);
    expect(calls.length).toBe(index.shards);
  });

  it('returns only entries strictly before the cursor, and bounds the query by the cursor’s minute', async () => {
    serve([...messagePages('a', [1, 2, 3]), ...messagePages('b', [4, 5])]);
    const entries = await readNewestEntries(10, {
      before: { timestamp: at(3, 2), uuid: uuid(302) },
    });
    expect(entries.map((entry) => entry.timestamp)).toEqual([at(2, 1), at(1, 0)]);
    const bound = dynamodb.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues![':bound'];
    expect(bound).toBe(at(4));
  });

  it('returns only entries strictly after the lower bound', async () => {
    serve(messagePages('a', [1, 2, 3]));
    const entries = await readNewestEntries(10, { after: { timestamp: at(1, 0) } });
    expect(entries.map((entry) => entry.timestamp)).toEqual([at(3, 2), at(2, 1)]);
  });
});

describe('readEntries', () => {
  beforeEach(() => dynamodb.reset());

  const pagesOf = (value: string, owner: string, minutes: number[]) =>
    buildIndexPages(
      7,
      { name: 'distinct_id', shards: 1 },
      owner,
      new Map([[value, minutes.map((m, i) => ({ timestamp: at(m, i), uuid: uuid(m * 100 + i) }))]]),
    );

  it('merges several index values (a person’s distinct ids) newest first', async () => {
    serve([...pagesOf('anon', 'a', [1, 4]), ...pagesOf('user', 'b', [2, 3])]);
    const entries = await readEntries({
      tableName: 't',
      projectId: 7,
      index: { name: 'distinct_id', shards: 1 },
      values: ['anon', 'user'],
      limit: 3,
    });
    expect(entries.map((entry) => entry.timestamp)).toEqual([at(4, 1), at(3, 1), at(2, 0)]);
  });

  it('reads oldest first, after a cursor, stopping once no later page can hold an earlier entry', async () => {
    serve(Array.from({ length: 10 }, (_, i) => pagesOf('u', `m${i}`, [i])).flat());
    const entries = await readEntries({
      tableName: 't',
      projectId: 7,
      index: { name: 'distinct_id', shards: 1 },
      values: ['u'],
      limit: 2,
      order: 'oldest',
      bounds: { after: { timestamp: at(2, 0), uuid: uuid(200) } },
    });
    expect(entries.map((entry) => entry.timestamp)).toEqual([at(3, 0), at(4, 0)]);
    const query = dynamodb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(query).toMatchObject({
      ScanIndexForward: true,
      KeyConditionExpression: 'PK = :pk AND SK > :bound',
    });
  });

  it('returns an event listed by several deliveries once, with the owner of every listing', async () => {
    // Prepare: a redelivery listed the same event again under its own owner.
    const listing = new Map([['u', [{ timestamp: at(5, 0), uuid: uuid(500) }]]]);
    const spec = { name: 'distinct_id', shards: 1 };
    serve([...buildIndexPages(7, spec, 'stale', listing), ...buildIndexPages(7, spec, 'current', listing)]);

    // Act
    const entries = await readEntries({ tableName: 't', projectId: 7, index: spec, values: ['u'], limit: 1 });

    // Assess
    expect(entries).toHaveLength(1);
    expect(entries[0]!.uuid).toBe(uuid(500));
    expect([...entries[0]!.owners].sort()).toEqual(['current', 'stale']);
  });

  it('reads many one-event pages with comparisons linear in their number, not its square', async () => {
    // Prepare: deliveries of one event each, one page apiece (as a flood of single captures lists them).
    const pagesOf = (count: number) =>
      Array.from({ length: count }, (_, n) =>
        buildIndexPages(
          7,
          { name: 'all', shards: 1 },
          `delivery-${n}`,
          new Map([['', [{ timestamp: new Date(Date.parse(at(0)) + n).toISOString(), uuid: uuid(n) }]]]),
        ),
      ).flat();
    const comparisons = async (count: number) => {
      serve(pagesOf(count));
      const request = {
        tableName: 't',
        projectId: 7,
        index: { name: 'all', shards: 1 },
        values: [''],
        limit: count,
      };
      const { result, compared } = await comparisonsOf(compareNewestFirst, () => readEntries(request));
      expect(result).toHaveLength(count);
      return compared;
    };

    // Act: ten times the pages
    const small = await comparisons(600);
    const large = await comparisons(6_000);

    // Assess: about ten times the comparisons (sorting after every page made a hundred times).
    expect(small).toBeGreaterThan(0);
    expect(large).toBeLessThanOrEqual(12 * small);
  });
});
