import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/events/handler';
import { maxPageBytes } from '../../../functions/events/list';
import * as db from '../../../functions/shared/db/events';
import * as elements from '../../../functions/shared/domain/elements';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import * as csv from '../../../functions/shared/http/csv';
import { httpEvent, lambdaContext } from '../../helpers/http-event';
import { bearer, ddb, givenCaller } from '../../helpers/private-api-mocks';

jest.mock('../../../functions/shared/db/events', () => ({
  ...jest.requireActual<typeof db>('../../../functions/shared/db/events'),
  listEvents: jest.fn(),
}));

const stored = (i: number, properties: Record<string, unknown>): StoredEvent => ({
  uuid: `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`,
  projectId: 7,
  event: 'e',
  distinctId: 'u',
  properties,
  timestamp: new Date(Date.UTC(2026, 0, 1) - i * 1000).toISOString(),
  elementsChain: '',
  createdAt: '2026-01-01T00:00:00.000Z',
});

/** The project's events as one CSV export, as large as a request may ask. */
const exportAll = () =>
  handler(
    httpEvent('GET', '/api/projects/7/events/', { headers: bearer, query: 'format=csv&limit=100000' }),
    lambdaContext,
  );

/**
 * Anyone with the project token chooses what the CSV export of the events must hold: the export's
 * work has to stay linear in what was read, however wide or large the events.
 */
describe('events CSV export of hostile events', () => {
  beforeEach(() => {
    givenCaller();
    ddb.on(BatchGetCommand).resolves({});
  });
  afterEach(() => jest.restoreAllMocks());

  it('bounds its columns and writes the page once, however wide the events and however much is cut', async () => {
    // Prepare: 2,000 ordinary events, one event with 2,000 keys of its own, then 30 events of 200 KB
    // (6 MB in all: the page is cut at the byte budget).
    const events = [
      ...Array.from({ length: 2_000 }, (_, i) => stored(i, { $lib: 'web', n: i })),
      stored(2_000, Object.fromEntries(Array.from({ length: 2_000 }, (_, k) => [`p${k}`, k]))),
      ...Array.from({ length: 30 }, (_, i) => stored(2_001 + i, { $lib: 'web', blob: 'b'.repeat(200_000) })),
    ];
    jest.mocked(db.listEvents).mockResolvedValue({ events });
    const writes = jest.spyOn(csv, 'toCsv');

    // Act
    const response = await exportAll();

    // Assess
    expect(response.statusCode).toBe(200);
    const body = response.body ?? '';
    const columns = body.slice(0, body.indexOf('\r\n')).split(',');
    // Of 2,009 columns (5 leading, `person`, `properties.$lib`, `.n`, `.blob`, 2,000 `.p…`), the
    // 1,000 kept are the leading ones, then the most common; 991 of the wide event's own keys fill
    // the rest. One pass of the writer, where finding the rows that fit took 12 before the last.
    expect(columns).toHaveLength(1_000);
    expect(columns).toEqual(expect.arrayContaining(['id', 'person', 'properties.$lib', 'properties.blob']));
    expect(response.headers?.['X-Csv-Omitted-Columns']).toBe('1009');
    expect(writes).toHaveBeenCalledTimes(1);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxPageBytes);
    expect(response.headers?.Link).toMatch(/cursor=.*>; rel="next"$/);
  });

  it('writes elements chains as they are stored, without parsing them into the elements it leaves out', async () => {
    // Prepare: 3,000 events with a chain each (parsing them was most of a row's cost).
    const chain = 'a.nav:href="/x"nth-child="1"text="Home";div.menu';
    const events = Array.from({ length: 3_000 }, (_, i) => ({
      ...stored(i, { n: i }),
      elementsChain: chain,
    }));
    jest.mocked(db.listEvents).mockResolvedValue({ events });
    const parses = jest.spyOn(elements, 'chainToElements');

    // Act
    const response = await exportAll();

    // Assess
    expect(response.statusCode).toBe(200);
    const lines = (response.body ?? '').split('\r\n');
    expect(lines[0]).toBe('id,event,distinct_id,timestamp,elements_chain,person,properties.n');
    expect(lines[1]).toBe(
      `${events[0]!.uuid},e,u,${events[0]!.timestamp},"${chain.replaceAll('"', '""')}",,0`,
    );
    expect(lines).toHaveLength(3_002);
    expect(parses).not.toHaveBeenCalled();
  });
});
