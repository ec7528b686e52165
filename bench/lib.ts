import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { numberSetting } from '../functions/shared/config';
import { environmentValue } from '../bin/environment';

/**
 * A realistic ~1 KB event. An SDK flushes every few seconds, so one request's events span seconds
 * (here: the last 10 s) and come from a handful of users (here: 10 per 100 events).
 */
export function sampleEvent(i: number, distinctIds = 10): Record<string, unknown> {
  return {
    event: i % 5 === 0 ? '$pageview' : `event ${i % 7}`,
    distinct_id: `user-${i % distinctIds}`,
    uuid: randomUUID(),
    timestamp: new Date(Date.now() - (i % 100) * 100).toISOString(),
    properties: {
      $current_url: `https://example.com/products/${i % 100}?ref=newsletter&utm_source=bench`,
      $host: 'example.com',
      $pathname: `/products/${i % 100}`,
      $browser: 'Chrome',
      $browser_version: 131,
      $os: 'Mac OS X',
      $device_type: 'Desktop',
      $screen_height: 1080,
      $screen_width: 1920,
      $lib: 'web',
      $lib_version: '1.449.2',
      $referrer: 'https://www.google.com/',
      $referring_domain: 'www.google.com',
      $session_id: randomUUID(),
      $window_id: randomUUID(),
      plan: i % 3 === 0 ? 'pro' : 'free',
      cart_value: (i % 97) * 3.5,
      items: ['sku-1', 'sku-2', 'sku-3'],
      description: 'x'.repeat(200),
    },
  };
}

export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

/**
 * `BENCH_SHORT=1` (`npm run bench:smoke`): every bench runs a small version of itself, in seconds to
 * a minute, to show it still runs and prints its figures; its timing targets mean nothing then.
 */
export const benchShort = environmentValue('BENCH_SHORT') === '1';

/** A bench's size: `name` from the environment, else `full`, or `short` in a short run. */
export const benchSetting = (name: string, full: number, short: number): number =>
  numberSetting(name, benchShort ? short : full);

/** The line `npm run bench` (bench/run.ts) reads each bench's verdict from. */
export const summaryPrefix = '::bench-summary::';

/** What a bench's summary row says: its headline figure and whether it meets the target. */
export interface Verdict {
  readonly figure: string;
  readonly met: boolean;
}

export interface Summary extends Verdict {
  readonly name: string;
  readonly target: string;
}

export function report(
  name: string,
  figures: Record<string, number | string>,
  target: string,
  verdict: Verdict,
): void {
  console.log(`\n## ${name}`);
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key.padEnd(34)} ${value}`);
  console.log(`  ${'target'.padEnd(34)} ${target}`);
  const summary: Summary = { name, target, ...verdict };
  console.log(`${summaryPrefix}${JSON.stringify(summary)}`);
}

/** DynamoDB's size of an item in bytes (attribute names and values), close enough to count write units. */
export function attributeSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(value).length / 2) + 1;
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value))
    return 3 + value.reduce((sum: number, inner) => sum + attributeSize(inner) + 1, 0);
  if (value instanceof Set) return [...value].reduce((sum: number, inner) => sum + attributeSize(inner), 0);
  return (
    3 +
    Object.entries(value as Record<string, unknown>).reduce(
      (sum, [name, inner]) => sum + Buffer.byteLength(name) + attributeSize(inner) + 1,
      0,
    )
  );
}

/** Write units of putting an item: one per started KB. */
export const writeUnits = (item: Record<string, unknown>): number =>
  Math.max(1, Math.ceil(attributeSize(item) / 1024));

/** Messages in a queue, visible, in flight or delayed. */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        // The lake hand-offs wait out the lake's settle time first.
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible) +
    Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

/** Resolves once the queue holds no message, visible or in flight. */
export async function waitUntilQueueEmpty(sqs: SQSClient, queueUrl: string, pollMs = 20): Promise<void> {
  while ((await queueDepth(sqs, queueUrl)) > 0) await sleep(pollMs);
}

/** Every event of a project, read through the events API page by page: uuid → times listed. */
export async function listEventIds(
  apiUrl: string,
  projectId: number,
  personalApiKey: string,
): Promise<Map<string, number>> {
  const listed = new Map<string, number>();
  let next: string | null = `${apiUrl}/api/projects/${projectId}/events/?limit=1000`;
  while (next) {
    const response: Response = await fetch(next, { headers: { authorization: `Bearer ${personalApiKey}` } });
    if (response.status !== 200) throw new Error(`events list answered ${response.status}`);
    const page = (await response.json()) as { results: { id: string }[]; next: string | null };
    for (const event of page.results) listed.set(event.id, (listed.get(event.id) ?? 0) + 1);
    next = page.next;
  }
  return listed;
}
