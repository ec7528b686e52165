import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The top frames of V8 CPU profiles (`node --cpu-prof`), by self time and by inclusive time, for
 * profiles of the local server's function containers (each worker thread writes its own profile):
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/pipeline.ts
 *   npx tsx bench/support/top-frames.ts /tmp/prof --only functions/consumer/ --top 20
 *
 * `--only` keeps the profiles in which some frame's script path holds that text (the consumer's
 * containers), and adds them up. docs/consumer.md keeps the latest findings.
 */

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface FrameTimes {
  /** Microseconds sampled in each frame itself. */
  readonly self: Map<string, number>;
  /** Microseconds sampled in each frame or anything it called (once per sample, recursion or not). */
  readonly inclusive: Map<string, number>;
  /** Microseconds sampled in each place (package, runtime, folder) or anything it called, once per sample. */
  readonly inclusivePlaces: Map<string, number>;
  /** Microseconds sampled in all. */
  total: number;
}

/** A frame's name: its function and where it is, relative to the repository or as its package. */
function frameName({ functionName, url, lineNumber }: CallFrame, root: string): string {
  const path = url.replace(/^file:\/\//, '');
  const inPackages = path.lastIndexOf('node_modules/');
  if (inPackages >= 0) {
    const parts = path.slice(inPackages + 'node_modules/'.length).split('/');
    const name = parts[0]!.startsWith('@') ? parts.splice(0, 2).join('/') : parts.shift()!;
    return `${functionName || '(anonymous)'} ${name}:${parts.join('/')}:${lineNumber + 1}`;
  }
  if (!path.startsWith('/'))
    return `${functionName || '(anonymous)'} ${path ? `${path}:${lineNumber + 1}` : ''}`.trim();
  // The repository's TypeScript runs compiled by tsx: its line numbers are the compiled ones.
  return `${functionName || '(anonymous)'} ${relative(root, path)}`;
}

/** Adds one profile's sampled time per frame into `into`. */
export function addProfile(profile: CpuProfile, into: FrameTimes, root = process.cwd()): void {
  const parent = new Map<number, number>();
  const names = new Map<number, string>();
  for (const node of profile.nodes) {
    names.set(node.id, frameName(node.callFrame, root));
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  profile.samples.forEach((id, i) => {
    const micros = Math.max(0, profile.timeDeltas[i] ?? 0);
    into.total += micros;
    const self = names.get(id)!;
    into.self.set(self, (into.self.get(self) ?? 0) + micros);
    const seen = new Set<string>();
    const places = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      const name = names.get(node)!;
      places.add(placeOf(name));
      if (seen.has(name)) continue;
      seen.add(name);
      into.inclusive.set(name, (into.inclusive.get(name) ?? 0) + micros);
    }
    for (const place of places)
      into.inclusivePlaces.set(place, (into.inclusivePlaces.get(place) ?? 0) + micros);
  });
}

/** The `top` frames of `times`, with their share of all sampled time. */
export function ranked(times: ReadonlyMap<string, number>, total: number, top: number): string[] {
  return [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`);
}

/** A frame of the repository's own code, as frameName writes it. */
const ownFrame = / (functions|bin)\//;

/** Where a frame (as frameName writes it) lives: its package, `node:` for the runtime, or its folder. */
function placeOf(name: string): string {
  const where = name.slice(name.lastIndexOf(' ') + 1);
  if (!where.includes('/') && !where.includes(':')) return name;
  if (where.startsWith('node:')) return 'node:';
  const packaged = /^((?:@[^/:]+\/)?[^/:]+):/.exec(where);
  if (packaged) return packaged[1]!;
  return where.split('/').slice(0, 2).join('/');
}

function main(args: string[]): void {
  const option = (name: string): string | undefined => {
    const index = args.indexOf(name);
    return index >= 0 ? args.splice(index, 2)[1] : undefined;
  };
  const only = option('--only');
  const top = Number(option('--top') ?? 20);
  const files = args.flatMap((path) =>
    statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((file) => file.endsWith('.cpuprofile'))
          .map((file) => join(path, file))
      : [path],
  );
  const times: FrameTimes = { self: new Map(), inclusive: new Map(), inclusivePlaces: new Map(), total: 0 };
  let used = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    if (only && !profile.nodes.some((node) => node.callFrame.url.includes(only))) continue;
    addProfile(profile, times);
    used++;
  }
  // Idle time is the event loop waiting (on DynamoDB, SQS): its share says how busy the thread was.
  console.log(`${used} profile(s), ${(times.total / 1e6).toFixed(1)} s sampled\n\nself time:`);
  for (const line of ranked(times.self, times.total, top)) console.log(line);
  // Self time by where the code lives: a package, the runtime, or the repository's folders.
  const byPlace = new Map<string, number>();
  for (const [name, micros] of times.self) {
    const place = placeOf(name);
    byPlace.set(place, (byPlace.get(place) ?? 0) + micros);
  }
  console.log('\nself time by package:');
  for (const line of ranked(byPlace, times.total, top)) console.log(line);
  // Inclusive by place: what a package (dynalite, fauxqs) or folder (bin/local) took with its callees.
  console.log('\ninclusive time by package:');
  for (const line of ranked(times.inclusivePlaces, times.total, top)) console.log(line);
  // Inclusive: the repository's own functions (the runtime's and packages' frames wrap everything).
  const own = new Map([...times.inclusive].filter(([name]) => ownFrame.test(name)));
  console.log('\ninclusive time (functions/, bin/):');
  for (const line of ranked(own, times.total, top)) console.log(line);
}

if (require.main === module) main(process.argv.slice(2));
