import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';

interface ApiPerson {
  type: string;
  id: string;
  uuid: string;
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: string;
}
interface PersonPage {
  results: ApiPerson[];
  next: string | null;
  previous: string | null;
}

/** The persons API through the local server: persons made by captured events, read back over HTTP. */
describe('persons API', () => {
  let server: LocalServer;
  let base: string;
  const run = randomUUID().slice(0, 8);
  const ids = Array.from({ length: 7 }, (_, n) => `user-${run}-${n}`);

  const api = () => privateApi(server);
  const pathOf = (url: string): string => url.slice(server.credentials.apiUrl.length);
  const list = (query = '') => api().get<PersonPage>(`${base}${query}`);

  beforeAll(async () => {
    server = await sharedLocalServer('persons-api');
    base = `/api/projects/${server.credentials.projectId}/persons/`;
    // One event per person, a second apart, so created_at orders them.
    const start = Date.now() - 60_000;
    const batch = ids.map((id, n) => ({
      event: 'signed up',
      uuid: randomUUID(),
      timestamp: new Date(start + n * 1_000).toISOString(),
      distinct_id: id,
      properties: { $set: { email: `${id}@example.com`, plan: n % 2 === 0 ? 'pro' : 'free', seats: n } },
    }));
    expect(
      (await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch })).status,
    ).toBe(200);
    await eventually('every person of the run', async () => {
      const page = await list('?limit=1000');
      return page.body.results.filter((person) => person.distinct_ids[0]?.startsWith(`user-${run}`))
        .length === ids.length
        ? true
        : undefined;
    });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('lists persons newest first in PostHog’s shape', async () => {
    const page = await list();
    expect(page.status).toBe(200);
    const ours = page.body.results.filter((person) => person.distinct_ids[0]?.startsWith(`user-${run}`));
    expect(ours.map((person) => person.distinct_ids[0])).toEqual([...ids].reverse());
    expect(ours[0]).toEqual({
      type: 'person',
      id: ours[0]!.uuid,
      uuid: ours[0]!.uuid,
      name: `${ids[6]}@example.com`,
      distinct_ids: [ids[6]],
      properties: expect.objectContaining({ email: `${ids[6]}@example.com`, plan: 'pro', seats: 6 }),
      is_identified: false,
      created_at: expect.any(String),
    });
    expect(page.body.previous).toBeNull();
  });

  it('pages forward and back by cursor without losing or repeating a person', async () => {
    const seen: string[] = [];
    let page = await list('?limit=3');
    const pages: PersonPage[] = [page.body];
    seen.push(...page.body.results.map((person) => person.uuid));
    while (page.body.next) {
      page = await api().get<PersonPage>(pathOf(page.body.next));
      expect(page.status).toBe(200);
      pages.push(page.body);
      seen.push(...page.body.results.map((person) => person.uuid));
    }
    expect(new Set(seen).size).toBe(seen.length);
    const all = await list('?limit=1000');
    expect(seen).toEqual(all.body.results.map((person) => person.uuid));
    // Back from the second page gives the first one.
    const second = pages[1]!;
    expect(second.previous).not.toBeNull();
    const back = await api().get<PersonPage>(pathOf(second.previous!));
    expect(back.body.results.map((person) => person.uuid)).toEqual(pages[0]!.results.map((p) => p.uuid));
  });

  it('finds a person by distinct id, by search and by property filters', async () => {
    const byId = await list(`?distinct_id=${ids[3]}`);
    expect(byId.body.results.map((person) => person.distinct_ids)).toEqual([[ids[3]]]);
    const bySearch = await list(`?search=${encodeURIComponent(`${run}-5@EXAMPLE`)}`);
    expect(bySearch.body.results.map((person) => person.distinct_ids[0])).toEqual([ids[5]]);
    const filters = [
      { key: 'plan', value: 'pro', operator: 'exact', type: 'person' },
      { key: 'seats', value: 3, operator: 'gt', type: 'person' },
      { key: 'email', value: run, operator: 'icontains', type: 'person' },
    ];
    const byProperties = await list(`?properties=${encodeURIComponent(JSON.stringify(filters))}`);
    expect(byProperties.body.results.map((person) => person.distinct_ids[0])).toEqual([ids[6], ids[4]]);
  });

  it('answers 400 naming the parameter for malformed filters and cursors', async () => {
    const unparsable = await list('?properties=%5Bnot-json');
    expect(unparsable.status).toBe(400);
    expect(unparsable.body).toMatchObject({ type: 'validation_error', attr: 'properties' });
    const badOperator = await list(
      `?properties=${encodeURIComponent(JSON.stringify([{ key: 'a', value: 1, operator: 'nope' }]))}`,
    );
    expect(badOperator.status).toBe(400);
    expect(badOperator.body).toMatchObject({ attr: 'properties__0__operator' });
    const cursor = await list('?cursor=garbage');
    expect(cursor.status).toBe(400);
    expect(cursor.body).toMatchObject({ attr: 'cursor' });
  });

  it('retrieves a person by uuid, and 404s an unknown or malformed one', async () => {
    const [first] = (await list(`?distinct_id=${ids[0]}`)).body.results;
    const found = await api().get<ApiPerson>(`${base}${first!.uuid}/`);
    expect(found.status).toBe(200);
    expect(found.body.distinct_ids).toEqual([ids[0]]);
    expect((await api().get(`${base}${randomUUID()}/`)).status).toBe(404);
    expect((await api().get(`${base}not-a-uuid/`)).status).toBe(404);
  });

  it('hides the alias person merged into the event’s person, which keeps both distinct ids', async () => {
    const anon = `anon-${run}`;
    const user = `merged-${run}`;
    const send = (event: Record<string, unknown>) =>
      postJson(server, '/capture/', { api_key: server.credentials.projectApiKey, ...event });
    await send({ event: '$pageview', distinct_id: anon, properties: {} });
    const anonPerson = await eventually(
      'the anonymous person',
      async () => (await list(`?distinct_id=${anon}`)).body.results[0],
    );
    await send({ event: '$pageview', distinct_id: user, properties: {} });
    const userPerson = await eventually(
      'the user person',
      async () => (await list(`?distinct_id=${user}`)).body.results[0],
    );
    await send({ event: '$merge_dangerously', distinct_id: user, properties: { alias: anon } });
    const survivor = await eventually('the merged person with both distinct ids', async () => {
      const [person] = (await list(`?distinct_id=${anon}`)).body.results;
      return person && person.distinct_ids.length === 2 ? person : undefined;
    });
    // PostHog merges the `alias` person into the person of the event's distinct_id and deletes it
    // (mergeDistinctIds in PostHog/posthog plugin-server/src/worker/ingestion/person-state.ts).
    expect(survivor.uuid).toBe(userPerson.uuid);
    expect(survivor.distinct_ids.sort()).toEqual([anon, user].sort());
    const all = (await list('?limit=1000')).body.results;
    expect(all.filter((person) => person.distinct_ids.includes(anon))).toHaveLength(1);
    expect((await api().get(`${base}${anonPerson.uuid}/`)).status).toBe(404);
  });

  it('ends a page before 5 MB of persons, with a next cursor, so no page passes Lambda’s 6 MB', async () => {
    // 40 persons of 150 KB of properties each (6 MB), as anyone with the project token can make them.
    const big = Array.from({ length: 40 }, (_, n) => `big-${run}-${n}`);
    const padding = 'x'.repeat(150 * 1024);
    for (const id of big)
      expect(
        (
          await postJson(server, '/capture/', {
            api_key: server.credentials.projectApiKey,
            event: 'bulky',
            distinct_id: id,
            properties: { $set: { padding, search_tag: `big-${run}` } },
          })
        ).status,
      ).toBe(200);
    await eventually(
      'the first big person',
      async () => {
        const page = await list(`?search=big-${run}&limit=1000`);
        return page.body.results.length > 0 ? true : undefined;
      },
      30_000,
    );
    const seen = new Set<string>();
    await eventually(
      'every big person across the pages',
      async () => {
        seen.clear();
        let path: string | undefined = `${base}?limit=100`;
        while (path) {
          const response = await fetch(`${server.credentials.apiUrl}${path}`, {
            headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
          });
          const text = await response.text();
          // Act / Assess: every page well under the limit
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(5 * 1024 * 1024 + 64 * 1024);
          const page = JSON.parse(text) as PersonPage;
          for (const person of page.results)
            if (person.distinct_ids[0]?.startsWith(`big-${run}`)) seen.add(person.distinct_ids[0]);
          path = page.next ? pathOf(page.next) : undefined;
        }
        return seen.size === big.length ? true : undefined;
      },
      60_000,
    );
    expect(seen.size).toBe(big.length);
  }, 120_000);
});
