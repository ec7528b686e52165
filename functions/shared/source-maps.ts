import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';

/**
 * Stack traces of a bundled function name the TypeScript (or package) file, line and column of each
 * frame in the bundle, as Node.js's `--enable-source-maps` would, but without its cost at every cold
 * start: with the flag, Node.js reads and parses the bundle's ~1 MB map and scans the whole bundle
 * while loading it (13–20% of a function's module load, docs/cold-start.md). Here the map is read
 * the first time a stack trace is formatted (V8 formats `error.stack` when it is first read), once
 * per container, and never by a container whose invocations log no error.
 *
 * Active only when this code runs from a bundle with its map beside it (`index.js.map`, as
 * lib/bundling.ts builds every function) and Node.js does not map stacks itself: under the local
 * server, the tests and the tools the functions run from their TypeScript sources, whose stack traces
 * are left alone.
 */

type StackTraceFormatter = NonNullable<typeof Error.prepareStackTrace>;

/** V8's call sites print themselves as a default stack frame does (`fn (file:line:column)`). */
type CallSite = NodeJS.CallSite & { toString(): string };

/** What one position of the bundle maps to: the source (absolute path), line and column, 1-based. */
interface Origin {
  readonly location: string;
  readonly name?: string;
}

/** A string field of a map entry, own keys only (`findEntry` answers `{}` where nothing maps). */
function ownString(entry: object, key: string): string | undefined {
  const value: unknown = Object.hasOwn(entry, key) ? (entry as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Maps positions of `bundleFile` through the map at `mapFile`, read at the first lookup. */
function bundleOrigins(
  bundleFile: string,
  mapFile: string,
): (line: number, column: number) => Origin | undefined {
  let map: SourceMap | null | undefined;
  const mapDirectory = dirname(mapFile);
  return (line, column) => {
    if (map === undefined) {
      try {
        map = new SourceMap(
          JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0],
        );
      } catch {
        // An unreadable map leaves the bundle's own positions in the trace rather than failing it.
        map = null;
      }
    }
    if (map === null) return undefined;
    const entry = map.findEntry(line - 1, column - 1);
    const source = ownString(entry, 'originalSource');
    if (source === undefined || !('originalLine' in entry)) return undefined;
    return {
      location: `${resolve(mapDirectory, source)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`,
      name: ownString(entry, 'name'),
    };
  };
}

/**
 * A stack trace formatter that writes each frame of `bundleFile` at its origin. A frame's function is
 * named as its caller's call expression names it (the map's name at the caller's position), as
 * Node.js does; otherwise it keeps the bundle's (minified) name.
 */
function sourceMappedStackFormatter(bundleFile: string, mapFile: string): StackTraceFormatter {
  const originOf = bundleOrigins(bundleFile, mapFile);
  const inBundle = (site: CallSite): Origin | undefined => {
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (site.getFileName() !== bundleFile || line === null || column === null) return undefined;
    return originOf(line, column);
  };
  return (error, sites: CallSite[]) => {
    let header: string;
    try {
      header = Error.prototype.toString.call(error);
    } catch {
      header = '<error>';
    }
    const frames = sites.map((site, i) => {
      const text = site.toString();
      const origin = inBundle(site);
      if (origin === undefined) return `    at ${text}`;
      const position = `${bundleFile}:${site.getLineNumber()}:${site.getColumnNumber()}`;
      const callerName = sites[i + 1] === undefined ? undefined : inBundle(sites[i + 1]!)?.name;
      const minifiedName = site.getFunctionName();
      const named =
        callerName !== undefined && minifiedName !== null && text.startsWith(minifiedName)
          ? callerName + text.slice(minifiedName.length)
          : text;
      return `    at ${named.replace(position, () => origin.location)}`;
    });
    return [header, ...frames].join('\n');
  };
}

/**
 * Installs the formatter for the bundle this module runs in (`__filename` is the bundle's path once
 * bundled), when it has a map and Node.js is not mapping stacks already.
 */
export function installSourceMappedStacks(bundleFile: string = __filename): boolean {
  const mapFile = `${bundleFile}.map`;
  if (process.sourceMapsEnabled || !existsSync(mapFile)) return false;
  Error.prepareStackTrace = sourceMappedStackFormatter(bundleFile, mapFile);
  return true;
}
