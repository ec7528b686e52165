import type { LocalServer } from '../../helpers/local-server';
import { sharedLocalServer } from '../../helpers/local-server';
import { hogql, lakeEvent, postQuery, putLakeEvents } from '../../helpers/query';

interface Body {
  results: unknown[][];
  is_cached: boolean;
  cache_key: string;
  last_refresh: string;
  cache_target_age: string;
  next_allowed_client_refresh: string;
}

/**
 * The query cache through the local server: per (project, query, lake state), so the second identical
 * request is answered from it, `force_blocking` recomputes, and a new lake file is never hidden by it.
 */
describe('the query cache', () => {
  let server: LocalServer;
  let projectId: number;

  beforeAll(async () => {
    server = await sharedLocalServer('query-cache');
    projectId = server.credentials.projectId;
    await putLakeEvents(server, projectId, [
      lakeEvent('$pageview', 'u1', '2024-03-04T10:00:00.000Z'),
      lakeEvent('$pageview', 'u2', '2024-03-04T11:00:00.000Z'),
    ]);
  });

  afterAll(async () => {
    await server?.stop();
  });

  const count = hogql("select count() from events where event = '$pageview'");

  it('answers the same query from the cache, whatever the order of its keys, until forced', async () => {
    const first = await postQuery<Body>(server, count);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ results: [[2]], is_cached: false });
    const second = await postQuery<Body>(
      server,
      { query: count.query, kind: 'HogQLQuery' },
      { refresh: 'blocking' },
    );
    expect(second.body).toMatchObject({
      results: [[2]],
      is_cached: true,
      cache_key: first.body.cache_key,
      last_refresh: first.body.last_refresh,
      cache_target_age: first.body.cache_target_age,
      next_allowed_client_refresh: first.body.next_allowed_client_refresh,
    });
    for (const refresh of ['force_cache', 'lazy_async', 'async']) {
      const cached = await postQuery<Body>(server, count, { refresh });
      expect({ refresh, cached: cached.body.is_cached }).toEqual({ refresh, cached: true });
    }
    const forced = await postQuery<Body>(server, count, { refresh: 'force_blocking' });
    expect(forced.body).toMatchObject({ results: [[2]], is_cached: false, cache_key: first.body.cache_key });
    expect(Date.parse(forced.body.last_refresh)).toBeGreaterThan(Date.parse(first.body.last_refresh));
  });

  it('never serves a result cached before new lake files', async () => {
    const before = await postQuery<Body>(server, count);
    await putLakeEvents(server, projectId, [lakeEvent('$pageview', 'u3', '2024-03-05T10:00:00.000Z')]);
    const after = await postQuery<Body>(server, count);
    expect(after.body).toMatchObject({ results: [[3]], is_cached: false });
    expect(after.body.cache_key).not.toBe(before.body.cache_key);
    expect((await postQuery<Body>(server, count)).body).toMatchObject({ results: [[3]], is_cached: true });
  });
});
