import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuProfile } from './top-frames';

/**
 * A consumer profile's time by where it goes (docs/consumer.md, "Where the consumer's time goes"):
 * each sample is counted under the first group that one of its frames belongs to, from the sampled
 * frame up its stack, so a zlib call made by the dictionary deflate counts as the deflate and the
 * SDK's socket write as HTTP, whoever called them. The idle thread and the start-up (module loading,
 * the bench's own messages) are counted apart, and the rest's shares are of the busy time.
 *
 *   BENCH_CPU_PROF=/tmp/consumer npx tsx bench/consumer-cpu.ts
 *   npx tsx bench/support/cost-groups.ts /tmp/consumer --cpu-per-event 0.26
 *
 * `--cpu-per-event` (the bench's `consumer CPU ms/event`) turns each share into ms per event.
 */

export interface CostGroup {
  readonly name: string;
  /** Matched against `<function> <url>` of each frame. */
  readonly frames: RegExp;
  /** Not busy time: left out of the shares. */
  readonly apart?: boolean;
}

export const consumerGroups: readonly CostGroup[] = [
  { name: '(idle)', frames: /^\(idle\) /, apart: true },
  {
    name: 'start-up and the bench',
    frames: /cjs\/loader|\/esm\/|esbuild|\/tsx\/|child_process\/serialization|\/bench\//,
    apart: true,
  },
  { name: 'garbage collection', frames: /^\(garbage collector\) / },
  { name: "event properties' dictionary deflate", frames: /db\/dictionary-deflate/ },
  { name: 'SigV4 signing', frames: /signature-v4|httpAuthSchemes/ },
  {
    name: "SDK serialisation (the items' JSON)",
    frames: /^(write|serialize)\w* \S*@smithy\/core\/dist-cjs\/submodules\/protocols\/|dynamodb-codec/,
  },
  { name: 'document client marshalling', frames: /lib-dynamodb|util-dynamodb/ },
  {
    name: 'HTTP (the SDK handler, Node HTTP, sockets)',
    frames: /node-http-handler|node:_http|node:net|stream_base|^writev |streams\/writable/,
  },
  { name: 'SDK per request (middleware, endpoint, retry, user agent, response)', frames: /@smithy|@aws-sdk/ },
  { name: 'event items and index pages', frames: /consumer\/store|db\/events|db\/event-index/ },
  { name: 'lake hand-off (JSON, deflate)', frames: /consumer\/lake|queue\/lake-message|queue\/pack/ },
  { name: 'property value samples', frames: /property-values/ },
  { name: 'property definitions', frames: /property-definitions/ },
  {
    name: 'persons',
    frames:
      /consumer\/persons|domain\/persons|person-limits|^applyTimed|^propertyUpdatesOf |^processesPerson /,
  },
  {
    name: 'processEvent and parsing records',
    frames: /consumer\/records|process-event|domain\/properties|domain\/elements|timestamps/,
  },
  { name: 'definitions and volumes', frames: /consumer\/definitions|domain\/definitions/ },
  { name: 'stages and the rest of functions/', frames: /\/functions\// },
];

/** Microseconds per group name (`other` for samples no frame of which belongs to a group). */
export function addCostGroups(
  profile: CpuProfile,
  groups: readonly CostGroup[],
  into: Map<string, number>,
): void {
  const parent = new Map<number, number>();
  const group = new Map<number, CostGroup | undefined>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url}`;
    group.set(
      node.id,
      groups.find(({ frames }) => frames.test(name)),
    );
  }
  profile.samples.forEach((id, i) => {
    let found: CostGroup | undefined;
    for (let node: number | undefined = id; node !== undefined && !found; node = parent.get(node))
      found = group.get(node);
    const name = found?.name ?? 'other';
    into.set(name, (into.get(name) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0));
  });
}

function main(args: string[]): void {
  const option = (name: string): string | undefined => {
    const index = args.indexOf(name);
    return index >= 0 ? args.splice(index, 2)[1] : undefined;
  };
  const cpuPerEvent = Number(option('--cpu-per-event') ?? Number.NaN);
  const only = option('--only') ?? 'functions/consumer/';
  const times = new Map<string, number>();
  for (const path of args) {
    const files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((file) => file.endsWith('.cpuprofile'))
          .map((file) => join(path, file))
      : [path];
    for (const file of files) {
      const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
      if (profile.nodes.some((node) => node.callFrame.url.includes(only)))
        addCostGroups(profile, consumerGroups, times);
    }
  }
  const apart = new Set(consumerGroups.filter((group) => group.apart).map((group) => group.name));
  const busy = [...times].filter(([name]) => !apart.has(name)).reduce((sum, [, micros]) => sum + micros, 0);
  console.log(
    `busy ${(busy / 1e6).toFixed(1)} s (apart: ${[...apart].map((name) => `${name} ${((times.get(name) ?? 0) / 1e6).toFixed(1)} s`).join(', ')})`,
  );
  for (const [name, micros] of [...times].sort((a, b) => b[1] - a[1])) {
    if (apart.has(name)) continue;
    const share = micros / busy;
    const perEvent = Number.isNaN(cpuPerEvent) ? '' : `  ${(share * cpuPerEvent).toFixed(3)} ms/event`;
    console.log(`${(100 * share).toFixed(1).padStart(5)}%${perEvent}  ${name}`);
  }
}

if (require.main === module) main(process.argv.slice(2));
