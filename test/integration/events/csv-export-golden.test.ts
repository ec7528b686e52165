import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Prng } from '../../../bench/fuzz/prng';
import { personUuidFor } from '../../../functions/shared/domain/persons';
import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';

/**
 * The events CSV export of a seeded project, byte for byte: hostile events (formula starts, quotes,
 * line breaks, dotted and empty keys, nested values, empty objects and lists, elements chains, one
 * event wider than the export's 1,000 columns) and persons with properties of their own. The
 * expected file was written by the export before it was made faster; any change to what it writes
 * shows here. `FLOCK_WRITE_GOLDEN=1` writes the file anew from the running code instead.
 */
const golden = join(__dirname, '../../fixtures/events-export.csv');
const eventCount = 360;
/**
 * The project the expected file was written from (a server's bootstrapped project). A person's uuid
 * is derived from its project and distinct id (`personUuidFor`), so the export of this file's own
 * project is compared with its persons' uuids written as that project's.
 */
const goldenProjectId = 1;

/** `body` with each person's uuid in `projectId` replaced by the same person's uuid in the golden project. */
function asGoldenProject(body: string, projectId: number, distinctIds: readonly string[]): string {
  let result = body;
  for (const distinctId of new Set(distinctIds))
    result = result.replaceAll(
      personUuidFor(projectId, distinctId),
      personUuidFor(goldenProjectId, distinctId),
    );
  return result;
}

const texts = [
  '=1+2',
  '+SUM(A1)',
  '-2+3+cmd|" /C calc"!A0',
  '@SUM(1)',
  '\tcell',
  '\rcell',
  'comma, here',
  'quote " here',
  'line\nbreak',
  'crlf\r\nbreak',
  'ñ😀 ünïcödé',
  '',
  ' spaced ',
  'plain',
  '0042',
  'null',
];
const values: unknown[] = [
  ...texts,
  0,
  -5,
  3.25,
  1e21,
  true,
  false,
  null,
  {},
  [],
  ['a', 1, null, { b: 'c' }],
  { nested: { deeper: 'x', list: [1, 2] } },
  { 'dotted.key': 1 },
];
const keys = ['plan', 'a.b', '', 'comma,key', 'quote"key', 'constructor', 'toString', '$lib', 'ñ', 'x'];
const chains = ['', 'a.nav:href="/x"nth-child="1"text="Home"', 'button.btn.primary:text="Buy, now"', 'div'];

function corpus(): Record<string, unknown>[] {
  const prng = new Prng(20_261_127);
  const pick = <T>(list: readonly T[]): T => prng.pick(list);
  return Array.from({ length: eventCount }, (_, i) => {
    const properties: Record<string, unknown> = {};
    const width = i === 7 ? 1_100 : prng.int(8);
    for (let k = 0; k < width; k++) properties[i === 7 ? `wide${k}` : pick(keys)] = pick(values);
    // A person's properties are the same whichever of its events the consumer stores last.
    const person = i % 23;
    const distinctId = person % 6 === 0 ? `=cmd|${person}` : `user-${person}`;
    if (i % 5 === 0)
      properties.$set = { email: `${distinctId}@example.com`, [keys[person % 10]!]: values[person] };
    if (i % 11 === 0) properties.$set_once = { first: texts[person % 16] };
    const chain = pick(chains);
    if (chain) properties.$elements_chain = chain;
    return {
      event: i % 9 === 0 ? pick(texts) || 'empty' : `event ${i % 4}`,
      distinct_id: distinctId,
      uuid: `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      properties,
    };
  });
}

describe('the events CSV export of a seeded project', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await sharedLocalServer('events CSV export golden');
  }, 60_000);

  afterAll(async () => {
    await server.stop();
  });

  it('writes the same bytes as it always has', async () => {
    // Prepare: the corpus in batches, in order (a person's $set applies in capture order).
    const events = corpus();
    for (let i = 0; i < events.length; i += 60) {
      const response = await postJson(server, '/batch/', {
        api_key: server.credentials.projectApiKey,
        batch: events.slice(i, i + 60),
      });
      expect(response.status).toBe(200);
    }
    const path = `/api/projects/${server.credentials.projectId}/events/`;
    await eventually(
      `the ${eventCount} events to be stored`,
      async () => {
        const page = await privateApi(server).get<{ count: number | null }>(`${path}?limit=1000`);
        return page.body.count === eventCount ? true : undefined;
      },
      60_000,
    );

    // Act
    const response = await fetch(`${server.credentials.apiUrl}${path}?format=csv&limit=100000`, {
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
    });
    const body = asGoldenProject(
      await response.text(),
      server.credentials.projectId,
      events.map((event) => String(event.distinct_id)),
    );

    // Assess
    expect(response.status).toBe(200);
    if (process.env.FLOCK_WRITE_GOLDEN === '1') writeFileSync(golden, body);
    expect(response.headers.get('x-csv-omitted-columns')).toBe('441');
    expect(body).toBe(readFileSync(golden, 'utf8'));
  }, 120_000);
});
