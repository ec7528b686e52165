import type { Route } from '../../routes';

/**
 * Matches a request against route-table rows the way API Gateway HTTP APIs do: `{name}` captures
 * one path segment, `{name+}` the rest; literal routes win over templated ones, greedy ones come
 * last, and `$default` catches what nothing else matched.
 */
export interface CompiledRoute {
  readonly route: Route;
  readonly pattern: RegExp;
  /** The same with the trailing-slash variable matching nothing but the slash itself. */
  readonly exactPattern: RegExp;
  readonly parameterNames: readonly string[];
  /** Per segment: 0 literal, 1 `{variable}`, 2 `{greedy+}`. */
  readonly segmentKinds: readonly number[];
}

/** Among routes matching one path, the one literal soonest, segment by segment, is the most specific. */
function moreSpecificFirst(a: CompiledRoute, b: CompiledRoute): number {
  const length = Math.max(a.segmentKinds.length, b.segmentKinds.length);
  for (let i = 0; i < length; i++) {
    const difference = (a.segmentKinds[i] ?? 3) - (b.segmentKinds[i] ?? 3);
    if (difference !== 0) return difference;
  }
  return 0;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileRoute(route: Route): CompiledRoute {
  const parameterNames: string[] = [];
  const segmentKinds: number[] = [];
  const segments = route.path.split('/');
  const source = segments
    .map((segment) => {
      const greedy = /^\{(.+)\+\}$/.exec(segment);
      if (greedy) {
        parameterNames.push(greedy[1]!);
        segmentKinds.push(2);
        // `/batch/{proxy+}` is how the route table spells `/batch/`: let it match an empty remainder.
        return '(.*)';
      }
      const variable = /^\{(.+)\}$/.exec(segment);
      if (variable) {
        parameterNames.push(variable[1]!);
        segmentKinds.push(1);
        return '([^/]+)';
      }
      segmentKinds.push(0);
      return escape(segment);
    })
    .join('/');
  const exactSource = segments
    .map((segment) => {
      if (/^\{(.+)\+\}$/.test(segment)) return '';
      if (/^\{(.+)\}$/.test(segment)) return '[^/]+';
      return escape(segment);
    })
    .join('/');
  return {
    route,
    pattern: new RegExp(`^${source}$`),
    exactPattern: new RegExp(`^${exactSource}$`),
    parameterNames,
    segmentKinds,
  };
}

/**
 * A path segment as its variable's value: percent-decoded, or as sent when it is not valid
 * percent-encoded UTF-8 (`%`, `%E0%A4%A`, an encoded lone surrogate), which `decodeURIComponent`
 * refuses with a URIError. The route function then judges the value like any other it does not know.
 */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export interface RouteMatch {
  readonly route: Route;
  readonly pathParameters: Record<string, string>;
}

export class RouteMatcher {
  private readonly compiled: CompiledRoute[];
  private readonly fallback: Route | undefined;

  constructor(routes: readonly Route[]) {
    this.fallback = routes.find((route) => route.path === '$default');
    this.compiled = routes
      .filter((route) => route.path !== '$default')
      .map(compileRoute)
      .sort(moreSpecificFirst);
  }

  /** The route serving `method path`, else `$default` (or undefined when there is none). */
  match(method: string, path: string): RouteMatch | undefined {
    for (const candidate of this.compiled) {
      if (candidate.route.method !== method && candidate.route.method !== 'ANY') continue;
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      const pathParameters: Record<string, string> = {};
      candidate.parameterNames.forEach((name, i) => {
        const value = found[i + 1]!;
        if (value !== '') pathParameters[name] = decodeSegment(value);
      });
      return { route: candidate.route, pathParameters };
    }
    return this.fallback ? { route: this.fallback, pathParameters: {} } : undefined;
  }

  /**
   * Whether some route serves this path under any method (405 rather than 404). A trailing-slash
   * variable only stands for the slash here: `/api/projects/1/nothing/` is no path of the API, even
   * though `/api/projects/{project_id}/{proxy+}` would catch it.
   */
  pathExists(path: string): boolean {
    return this.compiled.some((candidate) => candidate.exactPattern.test(path));
  }
}
