import { randomBytes, randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';

/**
 * Events anyone with the project token can send, read back by the team: what they carry must not
 * stall the read (the `$elements_chain` parse) or run in a spreadsheet (the CSV export).
 */
describe('reading hostile events', () => {
  let server: LocalServer;
  let path: string;
  const distinctId = `hostile-${randomUUID()}`;
  const csv = async (query: string): Promise<string> => {
    const response = await fetch(`${server.credentials.apiUrl}${path}?${query}`, {
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
    });
    expect(response.status).toBe(200);
    return response.text();
  };

  beforeAll(async () => {
    server = await sharedLocalServer('hostile-reads');
    path = `/api/projects/${server.credentials.projectId}/events/`;
    const response = await postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: [
        {
          event: '=HYPERLINK("https://evil.example","open")',
          distinct_id: distinctId,
          properties: {
            formula: '=1+2',
            plus: '+SUM(A1)',
            minus: '-2+3+cmd|" /C calc"!A0',
            at: '@SUM(1)',
            tab: '\tcell',
            number: -5,
            'comma,key': 'x',
            'quote"key': 'y',
            // Took a backtracking split 2^30 steps (minutes) on every read of the event.
            $elements_chain: `a"${'\\'.repeat(60)}`,
          },
        },
      ],
    });
    expect(response.status).toBe(200);
    await eventually(
      'the event of spreadsheet formulas to be stored',
      async () => {
        const page = await privateApi(server).get<{ results: unknown[] }>(
          `${path}?distinct_id=${encodeURIComponent(distinctId)}`,
        );
        return page.body.results.length === 1 ? true : undefined;
      },
      30_000,
    );
  }, 90_000);

  afterAll(async () => {
    await server.stop();
  });

  it('lists an event whose $elements_chain is a backtracking trap', async () => {
    const page = await privateApi(server).get<{ results: { elements: { tag_name: string | null }[] }[] }>(
      `${path}?distinct_id=${encodeURIComponent(distinctId)}`,
    );
    expect(page.status).toBe(200);
    expect(page.body.results[0]!.elements.map((element) => element.tag_name)).toEqual(['a', '\\'.repeat(60)]);
  });

  it('neutralises cells a spreadsheet would read as formulas, and quotes header cells', async () => {
    const text = await csv(`format=csv&distinct_id=${encodeURIComponent(distinctId)}`);
    const [header = '', row = ''] = text.split('\r\n');
    expect(header).toContain('"properties.comma,key"');
    expect(header).toContain('"properties.quote""key"');
    for (const cell of [`'=1+2`, `'+SUM(A1)`, `'@SUM(1)`, `'\tcell`]) expect(row.split(',')).toContain(cell);
    expect(row).toContain(`"'=HYPERLINK(""https://evil.example"",""open"")"`);
    expect(row).toContain(`"'-2+3+cmd|"" /C calc""!A0"`);
    expect(row).toContain(',-5,');
    // No cell of the row starts a formula (a number may start with a minus sign).
    expect(row.split(',').filter((cell) => /^"?[=+\-@\t\r]/.test(cell) && cell !== '-5')).toEqual([]);
  });

  it.each([
    ['a 3 KB distinct id', `distinct_id=${'d'.repeat(3000)}`, 'distinct_id'],
    ['a 3 KB event name', `event=${'e'.repeat(3000)}`, 'event'],
    ['an offset that would read a million events', 'offset=1000000', 'offset'],
  ])('answers %s with a 400 naming the field, not a failed read', async (_name, query, attr) => {
    const response = await privateApi(server).get<{ attr: string }>(`${path}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.attr).toBe(attr);
  });

  it('answers a property key too long to be stored with a 400', async () => {
    const response = await privateApi(server).get<{ attr: string }>(`${path}values/?key=${'k'.repeat(3000)}`);
    expect(response).toMatchObject({ status: 400, body: { attr: 'key' } });
  });

  it('keeps every page under Lambda’s 6 MB, JSON and CSV, and lists every event once across pages', async () => {
    // Prepare: 40 events of ~200 KB (random text: stored as sent, not compressed away) = 8 MB.
    const heavy = `heavy-${randomUUID()}`;
    const uuids = await captureHeavy(heavy, 40);
    const query = `distinct_id=${heavy}&limit=100`;
    await eventually(
      'the CSV export to list the heavy events',
      async () => {
        const csvAll = await fetch(`${server.credentials.apiUrl}${path}?${query}&format=csv`, {
          headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
        });
        const rows = (await csvAll.text()).trim().split('\r\n').length - 1;
        return rows > 0 ? true : undefined;
      },
      30_000,
    );
    await eventually(
      'every heavy event to be listed',
      async () => {
        const listed = await listAll(`${path}?${query}`);
        return listed.length === uuids.length ? true : undefined;
      },
      60_000,
    );

    // Act
    const pages: { bytes: number; ids: string[] }[] = [];
    let next: string | null = `${server.credentials.apiUrl}${path}?${query}`;
    while (next) {
      const response: Response = await fetch(next, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      });
      const text = await response.text();
      const page = JSON.parse(text) as { next: string | null; results: { id: string }[] };
      pages.push({ bytes: Buffer.byteLength(text), ids: page.results.map((e) => e.id) });
      next = page.next;
    }
    const csv = await fetch(`${server.credentials.apiUrl}${path}?${query}&format=csv`, {
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
    });
    const csvBytes = Buffer.byteLength(await csv.text());

    // Assess
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(page.bytes).toBeLessThan(6 * 1024 * 1024);
    expect(pages.flatMap((page) => page.ids).sort()).toEqual([...uuids].sort());
    expect(csvBytes).toBeLessThan(6 * 1024 * 1024);
    expect(csv.headers.get('link')).toMatch(/^<http.*cursor=.*>; rel="next"$/);
  }, 180_000);

  it('stops a read of large events at its character budget, and `next` goes on where it stopped, offset included', async () => {
    // Prepare: 60 events of ~200 KB (12 MB): more than one request decodes (examinedCharsBudget).
    const heavy = `budget-${randomUUID()}`;
    const uuids = await captureHeavy(heavy, 60);
    const query = `distinct_id=${heavy}&limit=100`;
    let newestFirst: string[] = [];
    await eventually(
      'every heavy event to be listed',
      async () => {
        newestFirst = await listAll(`${path}?${query}`);
        return newestFirst.length === uuids.length ? true : undefined;
      },
      90_000,
    );
    const none = encodeURIComponent(JSON.stringify([{ key: 'blob', value: 'no such value', type: 'event' }]));

    // Act
    const filtered = await walk(`${path}?${query}&properties=${none}`);
    const fromOffset = await walk(`${path}?${query}&offset=50`);
    const csvFiltered = await fetch(
      `${server.credentials.apiUrl}${path}?${query}&properties=${none}&format=csv`,
      {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      },
    );

    // Assess: each read stopped early, yet the walks are complete and exact.
    expect(filtered.pages).toBeGreaterThan(1);
    expect(filtered.ids).toEqual([]);
    // The offset is skipped by index entries: the 10 events after it fit one page.
    expect(fromOffset.pages).toBe(1);
    expect(fromOffset.ids).toEqual(newestFirst.slice(50));
    expect(csvFiltered.headers.get('link')).toMatch(/^<http.*cursor=.*>; rel="next"$/);
  }, 240_000);

  it('answers a deep offset by distinct id with its event: skipping reads index entries, not 8 MB of events', async () => {
    // Prepare: 80 events of ~100 KB (8 MB: twice what one request decodes)
    const deep = `deep-${randomUUID()}`;
    const uuids = await captureHeavy(deep, 80, 75_000);
    await eventually(
      'every deep event to be listed',
      async () => ((await listAll(`${path}?distinct_id=${deep}&limit=100`)).length === 80 ? true : undefined),
      90_000,
    );
    // Act
    const response = await privateApi(server).get<{ next: string | null; results: { id: string }[] }>(
      `${path}?distinct_id=${deep}&limit=1&offset=79`,
    );
    // Assess: the oldest event, and nothing after it
    expect(response.status).toBe(200);
    expect(response.body.results.map((e) => e.id)).toEqual([uuids[0]]);
    expect(response.body.next).toBeNull();
  }, 240_000);

  /** Captures `count` events of ~200 KB (random text: stored as sent, not compressed away). */
  async function captureHeavy(
    distinctId: string,
    count: number,
    randomBytesPerEvent = 150_000,
  ): Promise<string[]> {
    const uuids = Array.from({ length: count }, () => randomUUID());
    for (const uuid of uuids) {
      const response = await postJson(server, '/capture/', {
        api_key: server.credentials.projectApiKey,
        event: 'heavy',
        uuid,
        distinct_id: distinctId,
        properties: { blob: randomBytes(randomBytesPerEvent).toString('base64') },
      });
      expect(response.status).toBe(200);
    }
    return uuids;
  }

  /** Every event id of a listing in order, following `next`, and how many pages it took. */
  async function walk(first: string): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let pages = 0;
    let next: string | null = `${server.credentials.apiUrl}${first}`;
    while (next) {
      const response: Response = await fetch(next, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { next: string | null; results: { id: string }[] };
      ids.push(...page.results.map((e) => e.id));
      pages++;
      next = page.next;
    }
    return { ids, pages };
  }

  /** Every event of a listing, following `next`. */
  async function listAll(first: string): Promise<string[]> {
    const ids: string[] = [];
    let next: string | null = `${server.credentials.apiUrl}${first}`;
    while (next) {
      const response: Response = await fetch(next, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      });
      const page = (await response.json()) as { next: string | null; results: { id: string }[] };
      ids.push(...page.results.map((e) => e.id));
      next = page.next;
    }
    return ids;
  }
});
