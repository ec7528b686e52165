import '../bin/local/quiet-sdk';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { startBenchFlock } from './support/local-flock';
import { lambdaContext } from '../bin/local/api-gateway';
import { benchSetting, report, round } from './lib';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../functions/shared/db/keys';
import { forEachLimited } from '../functions/shared/concurrency';

/**
 * `/flags` handler time with cached definitions: 50 flags (rollouts, multivariate with payloads,
 * person-property conditions, group flags), evaluated for a different user each request, the body
 * shaped like posthog-node's (person properties and groups sent). The handler runs in-process against
 * the local emulators, so the figure is the function's own time: decoding, the cached token and
 * definitions, evaluation and the response. Target: p50 ≤ 2 ms. Also printed: DynamoDB requests per
 * call in the steady state, the p50 when the stored person has to be read, and the p50 of one flag on
 * the largest four-level cohort graph the write cap allows (cohortGraphFlag), for users whose person
 * is stored: on a repeat call for the same distinct id, as a browser makes on every page load (one
 * read: the person, its uuid remembered by the container, functions/flags/person-ids.ts), and on a
 * user's first call (two reads: the distinct id's mapping, then the person).
 *
 * A call that reads the store also times the emulator: dynalite runs in this process, so its request
 * parsing, LevelDB lookup and answer (and the SDK's signing and HTTP on both ends) are inside the
 * figure, where on AWS they are a network round trip. So after each user's graph calls the same two
 * items are read bare (plain GetItems of the handler's document client), interleaved: the 'floor'
 * p50s are what those reads cost here whatever Flock does (the person alone for a repeat call, both
 * for a first call), and 'Flock's own share' (a call's p50 less its floor's) is the handler, the
 * shape and parsing of its reads and the evaluation.
 */
const flagCount = 50;
const warmup = benchSetting('BENCH_DECIDE_WARMUP', 300, 30);
const measured = benchSetting('BENCH_DECIDE_REQUESTS', 5000, 200);

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<{ statusCode?: number; body?: string }>;

/** The 50 flags: a realistic mix of what projects define. */
function flagBodies(): Record<string, unknown>[] {
  return Array.from({ length: flagCount }, (_, i) => {
    const key = `bench-flag-${i}`;
    switch (i % 5) {
      case 0:
        return { key, filters: { groups: [{ properties: [], rollout_percentage: 10 + i }] } };
      case 1:
        return {
          key,
          filters: {
            groups: [{ properties: [], rollout_percentage: 100 }],
            multivariate: {
              variants: [
                { key: 'control', rollout_percentage: 50 },
                { key: 'test', rollout_percentage: 50 },
              ],
            },
            payloads: { control: { color: 'grey' }, test: { color: 'blue', size: i } },
          },
        };
      case 2:
        return {
          key,
          filters: {
            groups: [
              {
                properties: [{ key: 'email', value: '@example.com', operator: 'icontains', type: 'person' }],
              },
              {
                properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' }],
                rollout_percentage: 50,
              },
            ],
          },
        };
      case 3:
        return {
          key,
          filters: {
            groups: [
              {
                properties: [
                  { key: 'country', value: 'FR', operator: 'exact', type: 'person' },
                  { key: 'age', value: '18', operator: 'gte', type: 'person' },
                  { key: 'app_version', value: '2.1.0', operator: 'semver_gte', type: 'person' },
                ],
                rollout_percentage: 80,
              },
            ],
          },
        };
      default:
        return {
          key,
          filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 60 }] },
        };
    }
  });
}

/**
 * The largest four-level cohort graph the write cap allows, built with the API: 75 person filters,
 * then three levels of 5 references to the level below (9,686 filters and groups written out in place,
 * 9,687 for the flag), and a flag on its top. A cohort flag reads the stored person on every request.
 */
async function cohortGraphFlag(credentials: {
  apiUrl: string;
  projectId: number;
  personalApiKey: string;
}): Promise<{ key: string; expandedSize: number }> {
  const { apiUrl, projectId, personalApiKey } = credentials;
  const post = async (path: string, body: unknown): Promise<{ id: number }> => {
    const response = await fetch(`${apiUrl}/api/projects/${projectId}/${path}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${personalApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`${path} not created: ${await response.text()}`);
    return (await response.json()) as { id: number };
  };
  const kinds = [
    { key: 'email', value: '@', operator: 'icontains', type: 'person' },
    { key: 'plan', value: ['free', 'pro', 'team'], operator: 'exact', type: 'person' },
    { key: 'country', operator: 'is_set', type: 'person' },
  ];
  const and = (values: unknown[]) => ({ properties: { type: 'AND', values } });
  let cohort = await post('cohorts', {
    name: 'graph L1',
    filters: and(Array.from({ length: 75 }, (_, n) => kinds[n % 3])),
  });
  let size = 76;
  for (let level = 2; level <= 4; level++) {
    const refs = Array.from({ length: 5 }, () => ({ key: 'id', type: 'cohort', value: cohort.id }));
    cohort = await post('cohorts', { name: `graph L${level}`, filters: and(refs) });
    size = 1 + 5 * (1 + size);
  }
  const key = 'bench-cohort-graph';
  await post('feature_flags', {
    key,
    filters: {
      groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort.id }], rollout_percentage: 100 }],
    },
  });
  return { key, expandedSize: size };
}

function flagsEvent(body: unknown): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /flags/{proxy+}',
    rawPath: '/flags/',
    rawQueryString: 'v=2',
    queryStringParameters: { v: '2' },
    pathParameters: {},
    headers: { 'content-type': 'application/json', host: 'bench.local', 'user-agent': 'posthog-node/5.70.0' },
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'bench.local',
      domainPrefix: 'bench',
      http: {
        method: 'POST',
        path: '/flags/',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'posthog-node',
      },
      requestId: 'bench',
      routeKey: 'POST /flags/{proxy+}',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}

/**
 * A stored person for each of the first `count` users, with the properties the request sends: a
 * cohort flag reads the stored person on every request, and a known user's read finds it (the
 * mapping, then the person), as it would in production.
 */
async function storePersons(
  tableName: string,
  projectId: number,
  count: number,
  bodyOf: (i: number) => { distinct_id: string; person_properties: Record<string, unknown> },
): Promise<void> {
  const { claimDistinctId, putPerson } = await import('../functions/shared/db/persons');
  await forEachLimited(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const { distinct_id: distinctId, person_properties: properties } = bodyOf(i);
      const uuid = randomUUID();
      await putPerson(
        tableName,
        projectId,
        {
          uuid,
          createdAt: new Date().toISOString(),
          isIdentified: true,
          distinctIds: [distinctId],
          version: 1,
          properties,
          propertyStamps: {},
          unsetTimes: {},
        },
        undefined,
      );
      await claimDistinctId(tableName, projectId, distinctId, uuid);
    },
  );
}

/**
 * The floor of the stored person read: the same items (the distinct id's mapping, then its person)
 * read with two plain GetItems of the handler's document client, nothing projected, parsed or
 * evaluated. What is left of a request's time above it is Flock's: the handler, the request shape of
 * its reads, their parsing and the evaluation.
 */
async function bareReads(
  documentClient: DynamoDBDocumentClient,
  tableName: string,
  projectId: number,
  distinctId: string,
): Promise<{ both: number; person: number }> {
  const started = process.hrtime.bigint();
  const mapping = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.personDistinctId(projectId, distinctId) }),
  );
  const uuid = (mapping.Item as { person?: string } | undefined)?.person;
  if (uuid === undefined) throw new Error(`no stored person for ${distinctId}`);
  const second = process.hrtime.bigint();
  await documentClient.send(new GetCommand({ TableName: tableName, Key: keys.person(projectId, uuid) }));
  const ended = process.hrtime.bigint();
  return { both: Number(ended - started) / 1e6, person: Number(ended - second) / 1e6 };
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Handler times (ms) of `count` requests, each for another user. */
async function time(handler: Handler, count: number, bodyFor: (i: number) => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const event = flagsEvent(bodyFor(i));
    // Each invocation its own context, as Lambda gives it: a batch on a slow machine outlasts one
    // context's 30 s, and the handler's early timeout would then answer 500.
    const context = lambdaContext('flock-flags', 30_000);
    const started = process.hrtime.bigint();
    const result = await handler(event, context);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.statusCode !== 200) throw new Error(`flags answered ${result.statusCode}: ${result.body}`);
  }
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const bench = await startBenchFlock();
  const { flock } = bench;
  const { apiUrl, projectApiKey, projectId, personalApiKey } = flock.credentials;
  for (const body of flagBodies()) {
    const response = await fetch(`${apiUrl}/api/projects/${projectId}/feature_flags/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${personalApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`flag not created: ${await response.text()}`);
  }
  const { putGroupType } = await import('../functions/shared/db/group-types');
  await putGroupType(flock.endpoints.tables.main, projectId, 0, 'company');

  // The module the local server already loaded: its caches are the ones a Lambda container keeps.
  const { handler } = (await import('../functions/flags/handler')) as unknown as { handler: Handler };
  const { documentClient } = await import('../functions/shared/db/client');
  let tableRequests = 0;
  documentClient.middlewareStack.add(
    (next) => async (args) => {
      tableRequests++;
      return next(args);
    },
    { step: 'initialize', name: 'benchCounter' },
  );

  const nodeBody = (i: number) => ({
    token: projectApiKey,
    distinct_id: `user-${i}`,
    groups: { company: `company-${i % 20}` },
    person_properties: {
      email: i % 2 === 0 ? `user${i}@example.com` : `user${i}@other.org`,
      plan: ['free', 'pro', 'team'][i % 3],
      country: i % 4 === 0 ? 'FR' : 'DE',
      age: 16 + (i % 10),
      app_version: `2.${i % 3}.0`,
    },
    group_properties: { company: { name: `Company ${i % 20}` } },
    geoip_disable: true,
  });

  await time(handler, warmup, nodeBody);
  const sample = await handler(flagsEvent(nodeBody(1)), lambdaContext('flock-flags', 30_000));
  const evaluated = Object.keys((JSON.parse(sample.body ?? '{}') as { flags?: object }).flags ?? {}).length;
  if (evaluated !== flagCount) throw new Error(`expected ${flagCount} flags evaluated, got ${evaluated}`);
  tableRequests = 0;
  const steady = await time(handler, measured, nodeBody);
  const steadyRequests = tableRequests;
  // Without person properties, every request reads the stored person (two BatchGetItems).
  const withPerson = await time(handler, Math.min(1000, measured), (i) => ({
    token: projectApiKey,
    distinct_id: `user-${i}`,
    groups: { company: `company-${i % 20}` },
  }));

  const p50 = round(percentile(steady, 50), 3);
  const graph = await cohortGraphFlag(flock.credentials);
  const { definitionsTtlMs } = await import('../functions/flags/definitions');
  // The handler's definitions cache (5 s) must see the new flag.
  await sleep(definitionsTtlMs + 100);
  const graphBody = (i: number) => ({ ...nodeBody(i), flag_keys_to_evaluate: [graph.key] });
  const graphRequests = Math.min(2000, measured);
  // Persons for the measured users, then for the warm-up's (other users: each measured user's first
  // call must be its first in this container).
  await storePersons(flock.endpoints.tables.main, projectId, graphRequests + warmup, nodeBody);
  await time(handler, warmup, (i) => graphBody(graphRequests + i));
  const graphSample = await handler(flagsEvent(graphBody(0)), lambdaContext('flock-flags', 30_000));
  const graphFlag = (JSON.parse(graphSample.body ?? '{}') as { flags?: Record<string, { enabled: boolean }> })
    .flags?.[graph.key];
  if (graphFlag?.enabled !== true) throw new Error(`cohort graph flag not enabled: ${graphSample.body}`);
  // Per user, interleaved: its first graph call (user 0's was the sample), a repeat call (a browser's
  // next page load), then the same reads bare (what the emulator and the SDK cost).
  const table = flock.endpoints.tables.main;
  const onGraph: number[] = [];
  const repeated: number[] = [];
  const bare: number[] = [];
  const bareOne: number[] = [];
  let graphCallRequests = 0;
  let repeatCallRequests = 0;
  for (let i = 0; i < graphRequests; i++) {
    let before = tableRequests;
    if (i > 0) {
      onGraph.push(...(await time(handler, 1, () => graphBody(i))));
      graphCallRequests += (tableRequests - before) / (graphRequests - 1);
    }
    before = tableRequests;
    repeated.push(...(await time(handler, 1, () => graphBody(i))));
    repeatCallRequests += (tableRequests - before) / graphRequests;
    const reads = await bareReads(documentClient, table, projectId, `user-${i}`);
    bare.push(reads.both);
    bareOne.push(reads.person);
  }
  repeated.sort((a, b) => a - b);
  bareOne.sort((a, b) => a - b);
  onGraph.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  // The evaluation alone (no person read): the cohort flag against the definitions the handler uses.
  const { loadProjectFlags } = await import('../functions/flags/project-flags');
  const { evaluateFlags } = await import('../functions/shared/domain/flags');
  const definitions = await loadProjectFlags(flock.endpoints.tables.main, projectId);
  const graphFlags = definitions.active.filter((flag) => flag.key === graph.key);
  const evaluations: number[] = [];
  for (let i = 0; i < graphRequests; i++) {
    const started = process.hrtime.bigint();
    evaluateFlags(graphFlags, {
      distinctId: `user-${i}`,
      personProperties: nodeBody(i).person_properties,
      cohorts: definitions.cohorts,
    });
    evaluations.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  evaluations.sort((a, b) => a - b);

  report(
    `flags: POST /flags/?v=2 handler time, ${flagCount} flags, cached definitions`,
    {
      requests: measured,
      'p50 ms': p50,
      'p90 ms': round(percentile(steady, 90), 3),
      'p99 ms': round(percentile(steady, 99), 3),
      'DynamoDB requests per call': round(steadyRequests / measured, 4),
      'p50 ms, stored person read': round(percentile(withPerson, 50), 3),
      [`p50 ms, flag on a 4-level cohort graph (${graph.expandedSize} filters expanded), repeat call`]: round(
        percentile(repeated, 50),
        3,
      ),
      'p99 ms, repeat call on the cohort graph': round(percentile(repeated, 99), 3),
      'DynamoDB requests per repeat call (the person only)': round(repeatCallRequests, 2),
      'p50 ms, the person read bare (floor of a repeat call)': round(percentile(bareOne, 50), 3),
      "p50 ms, Flock's own share of a repeat call (repeat p50 - its floor p50)": round(
        percentile(repeated, 50) - percentile(bareOne, 50),
        3,
      ),
      'p50 ms, first call for a distinct id on the graph': round(percentile(onGraph, 50), 3),
      'DynamoDB requests per first call (mapping, then person)': round(graphCallRequests, 2),
      'p50 ms, the same two reads bare (floor of a first call)': round(percentile(bare, 50), 3),
      "p50 ms, Flock's own share of a first call (first p50 - its floor p50)": round(
        percentile(onGraph, 50) - percentile(bare, 50),
        3,
      ),
      'p50 ms, that flag evaluated alone (no person read)': round(percentile(evaluations, 50), 4),
    },
    'p50 ≤ 2 ms',
    { figure: `p50 ${p50} ms`, met: p50 <= 2 },
  );
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
