import '../bin/local/quiet-sdk';
import type { SQSRecord } from 'aws-lambda';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { toRecord } from '../bin/local/poller';
import { environmentWith } from '../bin/environment';
import { flattenPropertiesPlugin } from '../functions/shared/domain/plugins/flatten-properties';
import { geoIpPlugin } from '../functions/shared/domain/plugins/geoip';
import { taxonomyPlugin } from '../functions/shared/domain/plugins/taxonomy';
import { timestampParserPlugin } from '../functions/shared/domain/plugins/timestamp-parser';
import { userAgentPlugin } from '../functions/shared/domain/plugins/user-agent';
import type { CaptureMessage } from '../functions/shared/queue/message';
import { benchSetting, listEventIds, report, round, sampleEvent } from './lib';
import type { Ready, RoundResult } from './support/consumer-process';
import { startBenchFlock } from './support/local-flock';

/**
 * The cost of the processEvent plugins in ingestion (issue 11): the consumer's throughput with GeoIP,
 * User Agent Populator, Taxonomy, Timestamp Parser and Property Flattener enabled on a project, as a
 * ratio to the same workload on a project with no plugins; DynamoDB write units per event in both;
 * and the consumer's RSS before and after its GeoIP database is loaded.
 *
 * The consumer runs alone in a process of its own (support/consumer-process.ts, the real handler,
 * DynamoDB metered as in bench/write-cost) against `npm start`'s emulators, fed SQS batches built
 * here as capture would send them: each message one browser's flush of 20 events (one user, one IP,
 * one user agent), 50 messages an invocation, invocations one after another as one Lambda container
 * runs them. 100 users, each sending one flush a round, one in five on IPv6, user-0 at a known
 * Sydney address. Events are bench/lib's ~1 KB browser event with `$useragent` and no browser details
 * (as a server SDK relaying a browser sends them), nested properties, ISO timestamps and event names
 * in mixed conventions, so every plugin has work to do.
 *
 * One warm-up round per project (cold start, persons created, GeoIP read, definitions written), then
 * BENCH_ROUNDS rounds each, alternating which project goes first to spread the machine's drift over
 * both. Afterwards the stored events are read back through the events API: each project must hold
 * exactly what was sent, the plugins' project transformed (GeoIP, flattened keys, parsed timestamp,
 * browser from the user agent, renamed events) and the other untouched, or the bench fails.
 * Throughput is wall time, as Lambda bills it; the consumer's CPU time per event is printed beside it,
 * as it moves less when other work shares the machine. Write units are counted after the warm-up,
 * when every user is a returning one (the warm-up's, persons created, are printed too).
 * Targets: throughput ratio ≥ 0.7; write units per event within 0.05 of the run without plugins.
 */
const rounds = benchSetting('BENCH_ROUNDS', 8, 1);
const invocationsPerRound = benchSetting('BENCH_INVOCATIONS', 2, 1);
const messagesPerInvocation = 50;
const eventsPerMessage = 20;
/** Each sends one flush a round: after the warm-up, every user is a returning one. */
const users = invocationsPerRound * messagesPerInvocation;
const queueArn = 'arn:aws:sqs:us-east-1:000000000000:flock-ingest';
/** The whole run, from start to the last check; the bench fails rather than run on. */
const deadlineMs = 15 * 60_000;

const sydney = '13.106.122.3';
const userAgents = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
];
/** PostHog's own events (left alone) and custom ones in every convention Taxonomy converts from. */
const eventNames = [
  '$pageview',
  'Product Viewed',
  'add_to_cart',
  'checkout-started',
  'signed up',
  'orderCompleted',
  '$pageleave',
  'Search Performed',
];

/** The names Taxonomy's camelCase changes (`Product Viewed` → `product Viewed`, as PostHog's plugin does). */
const renamedByTaxonomy: ReadonlySet<string> = new Set([
  'Product Viewed',
  'add_to_cart',
  'checkout-started',
  'signed up',
  'Search Performed',
]);

const ipOf = (user: number): string =>
  user === 0
    ? sydney
    : user % 5 === 4
      ? `2a03:2880:f0${(user % 256).toString(16).padStart(2, '0')}::${user.toString(16)}`
      : `${((user * 7919) % 223) + 1}.${(user * 31) % 256}.${(user * 17) % 256}.${user % 256}`;

/** bench/lib's ~1 KB browser event, as relayed with its raw user agent, with nested properties added. */
function relayedEvent(i: number, user: number): Record<string, unknown> {
  const event = sampleEvent(i);
  const properties = { ...(event.properties as Record<string, unknown>) };
  for (const key of ['$browser', '$browser_version', '$os', '$device_type']) delete properties[key];
  return {
    ...event,
    event: eventNames[i % eventNames.length],
    distinct_id: `user-${user}`,
    properties: {
      ...properties,
      $useragent: userAgents[user % userAgents.length],
      product: {
        id: `sku-${i % 50}`,
        category: { name: i % 2 ? 'shoes' : 'shirts', path: ['shop', i % 2 ? 'shoes' : 'shirts'] },
        price: { amount: (i % 90) + 0.99, currency: 'EUR' },
      },
      utm: { source: 'newsletter', medium: 'email', campaign: `spring-${i % 4}` },
    },
  };
}

/** Round `r`'s invocations for a project: the same users and events whichever project it is. */
function roundOf(projectId: number, r: number): SQSRecord[][] {
  const invocations: SQSRecord[][] = [];
  for (let n = 0; n < invocationsPerRound; n++) {
    const records: SQSRecord[] = [];
    for (let m = 0; m < messagesPerInvocation; m++) {
      const sequence = (r * invocationsPerRound + n) * messagesPerInvocation + m;
      const user = sequence % users;
      const now = new Date().toISOString();
      const message: CaptureMessage = {
        v: 1,
        project_id: projectId,
        now,
        sent_at: now,
        ip: ipOf(user),
        site_url: null,
        events: Array.from({ length: eventsPerMessage }, (_, e) => {
          const data = relayedEvent(sequence * eventsPerMessage + e, user);
          return { uuid: String(data.uuid), distinct_id: String(data.distinct_id), data };
        }),
      };
      records.push(
        toRecord(
          { MessageId: randomUUID(), ReceiptHandle: 'bench', Body: JSON.stringify(message) },
          queueArn,
        ),
      );
    }
    invocations.push(records);
  }
  return invocations;
}

interface Api {
  post<T>(path: string, body: unknown): Promise<T>;
  get<T>(path: string): Promise<T>;
}

function privateApi(apiUrl: string, personalApiKey: string): Api {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${personalApiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
  return { post: (path, body) => call('POST', path, body), get: (path) => call('GET', path) };
}

/** The consumer process: each round sent, its result awaited. */
async function startConsumer(): Promise<{
  ready: Ready;
  run(invocations: SQSRecord[][]): Promise<RoundResult>;
  child: ChildProcess;
}> {
  const child = fork(join(__dirname, 'support/consumer-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    // Metrics (one EMF line an invocation) would only fill the output; both projects pay the same.
    env: environmentWith({ POWERTOOLS_METRICS_DISABLED: 'true' }),
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the consumer process exited with code ${String(code)}`);
  });
  const next = async <T>(): Promise<T> => ((await Promise.race([once(child, 'message'), exited])) as [T])[0];
  const ready = await next<Ready>();
  return {
    ready,
    child,
    run: async (invocations) => {
      child.send({ invocations });
      return next<RoundResult>();
    },
  };
}

interface StoredEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
}

/** What the plugins must have done to user-0's events (at the Sydney address), or not done. */
function transformationProblems(events: readonly StoredEvent[], plugins: boolean): string[] {
  const problems: string[] = [];
  const expect = (what: string, holds: (event: StoredEvent) => boolean): void => {
    const failing = events.filter((event) => !holds(event)).length;
    if (events.length === 0 || failing > 0)
      problems.push(
        `${plugins ? 'plugins' : 'no plugins'}: ${what} (${failing} of ${events.length} events not)`,
      );
  };
  const has = (event: StoredEvent, key: string): boolean => event.properties[key] !== undefined;

  if (plugins) {
    expect(
      'GeoIP: $geoip_country_code AU, $geoip_city_name Sydney',
      (event) =>
        event.properties.$geoip_country_code === 'AU' && event.properties.$geoip_city_name === 'Sydney',
    );
    expect('Property Flattener: product__category__name', (event) => has(event, 'product__category__name'));
    expect('Timestamp Parser: day_of_the_week', (event) => has(event, 'day_of_the_week'));
    expect(
      'User Agent: $browser set, $useragent gone',
      (event) => has(event, '$browser') && !has(event, '$useragent'),
    );
    expect('Taxonomy: no custom event name left as sent', (event) => !renamedByTaxonomy.has(event.event));
    expect(
      '$plugins_succeeded lists all five',
      (event) => (event.properties.$plugins_succeeded as unknown[] | undefined)?.length === 5,
    );
  } else {
    expect(
      'untouched: no $geoip_*, no flattened keys, $useragent kept, names as sent',
      (event) =>
        !has(event, '$geoip_country_code') &&
        !has(event, 'product__category__name') &&
        has(event, '$useragent') &&
        !has(event, '$plugins_succeeded') &&
        eventNames.includes(event.event),
    );
  }
  return problems;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

async function main(): Promise<void> {
  setTimeout(() => {
    console.error(`bench/plugins did not finish within ${deadlineMs / 60_000} minutes`);
    process.exit(1);
  }, deadlineMs).unref();
  const bench = await startBenchFlock({ cohortIntervalMs: 0 });
  const { apiUrl, personalApiKey } = bench.flock.credentials;
  const api = privateApi(apiUrl, personalApiKey);
  const project = async (name: string) => (await api.post<{ id: number }>('/api/projects/', { name })).id;
  const projects = {
    plain: await project('bench: no plugins'),
    plugins: await project('bench: five plugins'),
  };
  const enabled = [
    { plugin: geoIpPlugin.id, config: {} },
    { plugin: userAgentPlugin.id, config: {} },
    { plugin: taxonomyPlugin.id, config: { defaultNamingConvention: 'camelCase' } },
    { plugin: timestampParserPlugin.id, config: {} },
    { plugin: flattenPropertiesPlugin.id, config: { separator: '__' } },
  ];
  for (const [order, { plugin, config }] of enabled.entries())
    await api.post(`/api/projects/${projects.plugins}/plugin_configs/`, {
      plugin,
      enabled: true,
      order: order + 1,
      config,
    });

  const consumer = await startConsumer();
  const modes = ['plain', 'plugins'] as const;
  const results = { plain: [] as RoundResult[], plugins: [] as RoundResult[] };
  // Warm-up, not counted: the project without plugins first, so the RSS between is before GeoIP.
  const warmPlain = await consumer.run(roundOf(projects.plain, 0));
  const warmPlugins = await consumer.run(roundOf(projects.plugins, 0));
  for (let r = 1; r <= rounds; r++) {
    for (const mode of r % 2 ? modes : [...modes].reverse())
      results[mode].push(await consumer.run(roundOf(projects[mode], r)));
  }
  consumer.child.disconnect();

  const eventsPerRound = invocationsPerRound * messagesPerInvocation * eventsPerMessage;
  const measured = rounds * eventsPerRound;
  const rate = (mode: (typeof modes)[number]) =>
    measured / (sum(results[mode].map((result) => result.ms)) / 1000);
  const unitsPerEvent = (mode: (typeof modes)[number]) =>
    sum(results[mode].map((result) => result.writeUnits)) / measured;
  const cpuPerThousand = (mode: (typeof modes)[number]) =>
    sum(results[mode].map((result) => result.cpuMs)) / (measured / 1000);
  const roundRatios = results.plugins.map((result, r) => results.plain[r]!.ms / result.ms);
  const byKind = (mode: (typeof modes)[number]) => {
    const kinds: Record<string, number> = {};
    for (const result of results[mode])
      for (const [kind, n] of Object.entries(result.byKind)) kinds[kind] = (kinds[kind] ?? 0) + n;
    return Object.entries(kinds)
      .sort()
      .map(([kind, n]) => `${kind} ${round(n / measured, 3)}`)
      .join(', ');
  };

  // Every event stored once, and transformed only where the plugins are on.
  const problems: string[] = [];
  /** user-0's stored events' properties, on average: what the event items hold, before compression. */
  const propertyBytes = { plain: 0, plugins: 0 };
  const sent = (rounds + 1) * eventsPerRound;
  for (const mode of modes) {
    const failed = sum(
      [...results[mode], mode === 'plain' ? warmPlain : warmPlugins].map((result) => result.failedMessages),
    );
    if (failed > 0) problems.push(`${mode}: ${failed} messages failed`);
    const listed = await listEventIds(apiUrl, projects[mode], personalApiKey);
    if (listed.size !== sent || [...listed.values()].some((times) => times !== 1))
      problems.push(`${mode}: ${listed.size} distinct events listed of ${sent} sent`);
    const page = await api.get<{ results: StoredEvent[] }>(
      `/api/projects/${projects[mode]}/events/?distinct_id=user-0&limit=100`,
    );
    problems.push(...transformationProblems(page.results, mode === 'plugins'));
    propertyBytes[mode] = round(
      sum(page.results.map((event) => JSON.stringify(event.properties).length)) / page.results.length,
      0,
    );
  }

  const throughputRatio = round(rate('plugins') / rate('plain'));
  const unitsDifference = round(unitsPerEvent('plugins') - unitsPerEvent('plain'), 3);
  report(
    `plugins: consumer with GeoIP, User Agent, Taxonomy, Timestamp Parser, Property Flattener vs none`,
    {
      'events per project (measured)': `${measured} (${rounds} rounds of ${eventsPerRound}, after 1 warm-up)`,
      'no plugins events/s': round(rate('plain'), 0),
      'plugins events/s': round(rate('plugins'), 0),
      'throughput ratio (plugins / none)': throughputRatio,
      '  per round': roundRatios.map((ratio) => round(ratio)).join(', '),
      'consumer CPU ms per 1k events, none': round(cpuPerThousand('plain'), 0),
      'consumer CPU ms per 1k events, plugins': round(cpuPerThousand('plugins'), 0),
      'CPU ratio (none / plugins)': round(cpuPerThousand('plain') / cpuPerThousand('plugins')),
      'stored properties JSON bytes, none': propertyBytes.plain,
      'stored properties JSON bytes, plugins': propertyBytes.plugins,
      'write units per event, none': round(unitsPerEvent('plain'), 3),
      'write units per event, plugins': round(unitsPerEvent('plugins'), 3),
      'write units per event, difference': unitsDifference,
      '  by kind, none': byKind('plain'),
      '  by kind, plugins': byKind('plugins'),
      'warm-up write units per event, none': round(warmPlain.writeUnits / eventsPerRound, 3),
      'warm-up write units per event, plugins': round(warmPlugins.writeUnits / eventsPerRound, 3),
      'consumer RSS MB, handler loaded': round(consumer.ready.rssMb, 0),
      'consumer RSS MB, warm, no GeoIP': round(warmPlain.rssMb, 0),
      'consumer RSS MB, GeoIP loaded (IPv4 + IPv6)': round(warmPlugins.rssMb, 0),
      'consumer RSS MB, highest after a round': round(
        Math.max(...[...results.plain, ...results.plugins].map((result) => result.rssMb)),
        0,
      ),
      'stored events checked':
        problems.length === 0 ? 'all stored once; transformed only with plugins' : 'FAILED',
    },
    'throughput ratio ≥ 0.7; write units per event within 0.05',
    {
      figure: `throughput ratio ${throughputRatio}, write units ${unitsDifference >= 0 ? '+' : ''}${unitsDifference} per event`,
      met: throughputRatio >= 0.7 && Math.abs(unitsDifference) <= 0.05 && problems.length === 0,
    },
  );
  await bench.stop();
  if (problems.length > 0) {
    for (const problem of problems) console.error(`  ${problem}`);
    throw new Error('bench/plugins: the stored events are not what the plugins should make of them');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
