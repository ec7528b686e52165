import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/events/handler';
import type { IndexPageItem } from '../../../functions/shared/db/event-index';
import { eventIndexes } from '../../../functions/shared/db/event-index';
import { buildIndexPages } from '../../helpers/index-pages';
import type { EventItem } from '../../../functions/shared/db/events';
import { toEventItem } from '../../../functions/shared/db/events';
import { httpEvent, invoke } from '../../helpers/http-event';
import { bearer, ddb, givenCaller } from '../../helpers/private-api-mocks';

/**
 * What a listing reads: index pages (by Query and by key) and event items served from memory, persons from nowhere (no
 * distinct id has one), every key asked for recorded.
 */
const owner = 'delivery-1';
const at = (second: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, second)).toISOString();
const uuidOf = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const distinctIds = ['anna', 'ben', 'cleo'];

const list = (query: string) =>
  invoke(handler, httpEvent('GET', '/api/projects/7/events/', { headers: bearer, query }));

/** 600 events of three distinct ids, all in one minute, as one delivery stores them. */
function stored(): { pages: IndexPageItem[]; items: EventItem[] } {
  const events = Array.from({ length: 600 }, (_, n) => ({
    uuid: uuidOf(n),
    projectId: 7,
    event: 'e',
    distinctId: distinctIds[n % 3]!,
    properties: { n },
    timestamp: at(Math.floor(n / 20)),
    elementsChain: '',
    createdAt: at(0),
  }));
  const entries = events.map((event) => ({ timestamp: event.timestamp, uuid: event.uuid }));
  return {
    pages: buildIndexPages(7, eventIndexes.all, owner, new Map([['', entries]])),
    items: events.map((event) => toEventItem(event, owner)),
  };
}

/** The keys every BatchGetItem asked for, by their PK's prefix (`E`, `DID`, …). */
function keysAskedFor(prefix: string): string[] {
  return ddb
    .commandCalls(BatchGetCommand)
    .flatMap((call) => Object.values(call.args[0].input.RequestItems ?? {}))
    .flatMap((request) => (request.Keys ?? []).map((key) => String(key.PK)))
    .filter((pk) => pk.startsWith(`${prefix}#`));
}

describe('events list: what a page reads', () => {
  beforeEach(() => {
    // A filtered read stops after 300 ms of reading: these cases count what a whole read asks for,
    // so the read's clock stands still (a loaded machine took over 300 ms and cut the read short).
    jest.spyOn(performance, 'now').mockReturnValue(0);
    givenCaller();
    const { pages, items } = stored();
    ddb.on(QueryCommand).callsFake((input: QueryCommand['input']) => {
      const values = input.ExpressionAttributeValues ?? {};
      const bound = values[':bound'] as string | undefined;
      const found = pages
        .filter((page) => page.PK === values[':pk'] && (bound === undefined || page.SK < bound))
        .sort((a, b) => (a.SK < b.SK ? 1 : -1));
      return { Items: found };
    });
    ddb.on(BatchGetCommand).callsFake((input: BatchGetCommand['input']) => {
      const [table, request] = Object.entries(input.RequestItems ?? {})[0]!;
      const wanted = new Set((request.Keys ?? []).map((key) => `${String(key.PK)} ${String(key.SK)}`));
      const found = [...pages, ...items].filter((item) => wanted.has(`${item.PK} ${item.SK}`));
      return { Responses: { [table]: found } };
    });
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('looks up each distinct id’s person once for a person-property filter, however many events it examines', async () => {
    // Prepare
    const filter = encodeURIComponent(JSON.stringify([{ key: 'email', value: 'x', type: 'person' }]));

    // Act
    const response = await list(`properties=${filter}`);

    // Assess: all 600 events examined (none matches), in several chunks; three persons looked up.
    expect(response).toMatchObject({ statusCode: 200, body: { count: 0, results: [] } });
    expect(keysAskedFor('E')).toHaveLength(600);
    expect(keysAskedFor('DID').sort()).toEqual(['DID#7#anna', 'DID#7#ben', 'DID#7#cleo']);
  });

  it('refuses more than 50 property filters with a 400, before reading anything', async () => {
    // Each filter is matched against every event a listing examines: their number multiplies its work.
    const filters = Array.from({ length: 51 }, (_, i) => ({
      key: 'n',
      value: `absent-${i}`,
      operator: 'icontains',
    }));

    const response = await list(`properties=${encodeURIComponent(JSON.stringify(filters))}`);

    expect(response).toMatchObject({
      statusCode: 400,
      body: { code: 'invalid_input', detail: 'At most 50 property filters are allowed.' },
    });
    expect(keysAskedFor('E')).toHaveLength(0);
  });

  it('refuses an icontains filter without a value with a 400, before reading anything', async () => {
    // Before, it reached an event holding the property and threw there: a 500.
    const filters = [{ key: 'n', operator: 'icontains' }];

    const response = await list(`properties=${encodeURIComponent(JSON.stringify(filters))}`);

    expect(response).toMatchObject({
      statusCode: 400,
      body: { code: 'invalid_input', detail: 'A property filter with operator icontains needs a value.' },
    });
    expect(keysAskedFor('E')).toHaveLength(0);
  });

  it('answers a filtered page past the end of the index from index lines alone, with its previous page', async () => {
    // Prepare
    const filter = encodeURIComponent(JSON.stringify([{ key: 'n', value: 3, operator: 'exact' }]));

    // Act
    const response = await list(`properties=${filter}&limit=100&offset=700`);

    // Assess: no event read, an empty page that links back, no count (the matches were not counted).
    expect(response).toMatchObject({
      statusCode: 200,
      body: { count: null, next: null, results: [] },
    });
    expect((response.body as { previous: string }).previous).toMatch(/limit=100&offset=600/);
    expect(keysAskedFor('E')).toHaveLength(0);
  });

  it('still reads the events of a filtered page whose offset lies within the index', async () => {
    // Prepare
    const filter = encodeURIComponent(JSON.stringify([{ key: 'n', value: 3, operator: 'exact' }]));

    // Act
    const response = await list(`properties=${filter}&limit=100&offset=0`);

    // Assess
    expect(response).toMatchObject({ statusCode: 200, body: { count: 1, results: [{ id: uuidOf(3) }] } });
  });
});
