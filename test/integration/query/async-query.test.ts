import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { singleTable } from '../../../functions/shared/db/schema';
import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { documentClientOf, eventually, startLocalServer } from '../../helpers/local-server';
import { newProject } from '../../helpers/projects';
import { hogql, lakeEvent, postQuery, putLakeEvents } from '../../helpers/query';

interface QueryStatus {
  id: string;
  team_id: number;
  query_async: true;
  complete: boolean;
  error: boolean;
  error_message: string | null;
  results: Record<string, unknown> | null;
  start_time: string | null;
  pickup_time: string | null;
  end_time: string | null;
  expiration_time: string | null;
}

interface Body {
  query_status?: QueryStatus;
  cache_key?: string;
  results?: unknown[][];
  is_cached?: boolean;
  last_refresh?: string;
  detail?: string;
}

/**
 * Async queries through the local server (PostHog's `refresh` async modes, `GET` and `DELETE
 * …/query/:query_id/`): the run goes through the runs queue to the query function, as on AWS.
 */
describe('async queries', () => {
  let server: LocalServer;
  let projectId: number;
  const holdDir = mkdtempSync(join(tmpdir(), 'flock-hold-'));
  const holdFile = join(holdDir, 'hold');
  const events = [
    lakeEvent('$pageview', 'u1', '2024-03-04T10:00:00.000Z'),
    lakeEvent('$pageview', 'u2', '2024-03-04T11:00:00.000Z'),
    lakeEvent('signup', 'u2', '2024-03-05T11:00:00.000Z'),
  ];
  const statusPath = (id: string, project: number | string = projectId) =>
    `/api/projects/${project}/query/${id}/`;

  beforeAll(async () => {
    server = await startLocalServer({
      functionPreload: [join(__dirname, '../../fixtures/hold-query-runs.ts')],
      env: { FLOCK_TEST_HOLD_QUERY_RUNS: holdFile },
    });
    projectId = server.credentials.projectId;
    await putLakeEvents(server, projectId, events);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(holdDir, { recursive: true, force: true });
  });

  /** Polls the status until it is complete: its last answer. */
  const completed = (path: string) =>
    eventually(`${path} to complete`, async () => {
      const response = await privateApi(server).get<Body>(path);
      return response.status === 202 ? undefined : response;
    });

  it('answers force_async at once with a pending status, then the full response once run', async () => {
    const query = hogql('select event, count() as c from events group by event order by event');
    const sent = await postQuery<Body>(server, query, {
      refresh: 'force_async',
      client_query_id: 'my-count-1',
    });
    expect(sent.status).toBe(202);
    expect(Object.keys(sent.body)).toEqual(['query_status']);
    expect(sent.body.query_status).toMatchObject({
      id: 'my-count-1',
      team_id: projectId,
      query_async: true,
      complete: false,
      error: false,
      error_message: null,
      results: null,
      end_time: null,
    });
    expect(Date.parse(sent.body.query_status!.start_time!)).not.toBeNaN();

    const done = await completed(statusPath('my-count-1'));
    expect(done.status).toBe(200);
    const status = done.body.query_status!;
    expect(status).toMatchObject({ id: 'my-count-1', complete: true, error: false, error_message: null });
    expect(status.results).toMatchObject({
      columns: ['event', 'c'],
      results: [
        ['$pageview', 2],
        ['signup', 1],
      ],
      is_cached: false,
      hogql: query.query,
      query_status: null,
    });
    const end = Date.parse(status.end_time!);
    expect(end).toBeGreaterThanOrEqual(Date.parse(status.pickup_time!));
    expect(Date.parse(status.expiration_time!)).toBe(Math.floor(end / 1000) * 1000 + 600_000);
    // The same status under /api/environments/ and @current; the run cached its result.
    const viaEnvironments = await privateApi(server).get<Body>('/api/environments/@current/query/my-count-1');
    expect(viaEnvironments.body.query_status).toEqual(status);
    const again = await postQuery<Body>(server, query, { refresh: 'async' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ is_cached: true, query_status: null });
  });

  it('answers async from the cache when fresh, and on a miss with the cache key as its id', async () => {
    const query = hogql("select count() from events where event = 'signup'");
    const sent = await postQuery<Body>(server, query, { refresh: 'async' });
    expect(sent.status).toBe(202);
    expect(Object.keys(sent.body).sort()).toEqual(['cache_key', 'query_status']);
    expect(sent.body.query_status!.id).toBe(sent.body.cache_key);
    const done = await completed(statusPath(sent.body.cache_key!));
    expect(done.body.query_status!.results).toMatchObject({ results: [[1]] });
    for (const refresh of ['async', 'lazy_async', 'async_except_on_cache_miss']) {
      const cached = await postQuery<Body>(server, query, { refresh });
      expect({ refresh, status: cached.status, cached: cached.body.is_cached }).toEqual({
        refresh,
        status: 200,
        cached: true,
      });
    }
    // The deprecated `async: true` is `refresh: "async"`.
    const deprecated = await postQuery<Body>(server, hogql('select 2'), { async: true });
    expect(deprecated.status).toBe(202);
  });

  it('answers a stale cached result at once with the status of its recomputation (202)', async () => {
    const query = hogql("select count() from events where event = '$pageview' and distinct_id = 'u1'");
    const first = await postQuery<Body>(server, query);
    expect(first.body).toMatchObject({ results: [[1]], is_cached: false });
    // Seven hours later, as far as the cache is concerned: past its 6 h freshness, within its 24 h.
    const staleAt = new Date(Date.now() - 7 * 3_600_000).toISOString();
    const makeStale = async (): Promise<void> => {
      const documents = documentClientOf(server);
      try {
        const key = { PK: `QCACHE#${first.body.cache_key}`, SK: 'QCACHE' };
        const { Item: item } = await documents.send(
          new GetCommand({ TableName: singleTable.name, Key: key }),
        );
        await documents.send(
          new PutCommand({ TableName: singleTable.name, Item: { ...item, last_refresh: staleAt } }),
        );
      } finally {
        documents.destroy();
      }
    };
    for (const refresh of ['async', 'async_except_on_cache_miss']) {
      await makeStale();
      const stale = await postQuery<Body>(server, query, { refresh, client_query_id: `stale-${refresh}` });
      expect({ refresh, status: stale.status }).toEqual({ refresh, status: 202 });
      expect(stale.body).toMatchObject({ results: [[1]], is_cached: true, last_refresh: staleAt });
      expect(stale.body.query_status).toMatchObject({ id: `stale-${refresh}`, complete: false });
      const done = await completed(statusPath(`stale-${refresh}`));
      expect(done.body.query_status!.results).toMatchObject({ results: [[1]], is_cached: false });
    }
    // The recomputation cached a fresh result.
    const fresh = await postQuery<Body>(server, query, { refresh: 'async' });
    expect(fresh.status).toBe(200);
    expect(fresh.body.is_cached).toBe(true);
  });

  it('computes async_except_on_cache_miss within the request on a miss', async () => {
    const response = await postQuery<Body>(server, hogql('select 40 + 2'), {
      refresh: 'async_except_on_cache_miss',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ results: [[42]], is_cached: false });
  });

  it('cancels: 204, the status is gone and the run never writes its result', async () => {
    const query = hogql("select count() from events where event = '$pageview'");
    writeFileSync(holdFile, '');
    try {
      const sent = await postQuery<Body>(server, query, {
        refresh: 'force_async',
        client_query_id: 'to-cancel',
      });
      expect(sent.status).toBe(202);
      const cancelled = await privateApi(server).delete(statusPath('to-cancel'));
      expect(cancelled.status).toBe(204);
      expect((await privateApi(server).get<Body>(statusPath('to-cancel'))).status).toBe(404);
      expect((await privateApi(server).delete(statusPath('to-cancel'))).status).toBe(404);
    } finally {
      rmSync(holdFile);
    }
    await eventually('the held run to have run', async () =>
      existsSync(`${holdFile}.ran`) ? true : undefined,
    );
    expect((await privateApi(server).get<Body>(statusPath('to-cancel'))).status).toBe(404);
    // Nothing was cached by the cancelled run: the same query is a miss.
    const after = await postQuery<Body>(server, query, { refresh: 'async' });
    expect(after.status).toBe(202);
    expect(after.body.cache_key).toBeDefined();
  });

  it("reads a run that passed the function's timeout as errored, never pending", async () => {
    const documents = documentClientOf(server);
    const now = Date.now();
    const stalled = (id: string, fields: Record<string, unknown>) =>
      documents.send(
        new PutCommand({
          TableName: singleTable.name,
          Item: {
            PK: `QSTATUS#${projectId}#${id}`,
            SK: 'QSTATUS',
            project_id: projectId,
            query_id: id,
            query: JSON.stringify(hogql('select 1')),
            timezone: 'UTC',
            token: 't',
            complete: false,
            error: false,
            expires: Math.floor(now / 1000) + 600,
            ...fields,
          },
        }),
      );
    try {
      await stalled('crashed', { start_ms: now - 20_000, pickup_ms: now - 15_000 });
      await stalled('never-picked', { start_ms: now - 70_000 });
      await stalled('running', { start_ms: now - 5_000, pickup_ms: now - 4_000 });
    } finally {
      documents.destroy();
    }
    for (const id of ['crashed', 'never-picked']) {
      const response = await privateApi(server).get<Body>(statusPath(id));
      expect({ id, status: response.status }).toEqual({ id, status: 400 });
      expect(response.body.query_status).toMatchObject({ complete: true, error: true, results: null });
      expect(response.body.query_status!.error_message).toMatch(/timed out or failed/);
    }
    const running = await privateApi(server).get<Body>(statusPath('running'));
    expect(running.status).toBe(202);
    expect(running.body.query_status).toMatchObject({ complete: false, error: false });
  });

  it("finds a query id in its own project only: another project's, or a forged one, is 404", async () => {
    const sent = await postQuery<Body>(server, hogql('select 7'), {
      refresh: 'force_async',
      client_query_id: 'mine-only',
    });
    expect(sent.status).toBe(202);
    const other = await newProject(server, 'async other');
    for (const path of [
      statusPath('mine-only', other.id),
      `/api/environments/${other.id}/query/mine-only/`,
      statusPath('forged-id'),
      statusPath('..%2F..%2Fetc'),
      statusPath(`cache_${projectId}_${'0'.repeat(64)}`),
    ]) {
      const response = await privateApi(server).get<Body>(path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    const forged = await privateApi(server).get<Body>(statusPath('forged-id'));
    expect(forged.body).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: `Query forged-id not found for team ${projectId}`,
      attr: null,
    });
    expect((await privateApi(server).delete(statusPath('mine-only', other.id))).status).toBe(404);
    expect((await completed(statusPath('mine-only'))).status).toBe(200);
  });

  it('needs query:read to read or cancel a status', async () => {
    const created = await privateApi(server).post<{ value: string }>('/api/personal_api_keys/', {
      label: 'no query',
      scopes: ['cohort:read'],
    });
    const api = privateApi(server, created.body.value);
    for (const response of [await api.get<Body>(statusPath('x')), await api.delete<Body>(statusPath('x'))]) {
      expect(response.status).toBe(403);
      expect(response.body.detail).toBe("API key missing required scope 'query:read'");
    }
  });
});
