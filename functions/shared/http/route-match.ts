import type { Route } from '../../routes';

/**
 * Matches a request against route-table rows the way API Gateway HTTP APIs do: `{name}` captures
 * one path segment, `{name+}` the rest; literal routes win over templated ones, greedy ones come
 * last, and `$default` catches what nothing else matched.
 */
export interface CompiledRoute {
  readonly route: Route;
  readonly pattern: RegExp;
  readonly parameterNames: readonly string[];
  readonly specificity: number;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileRoute(route: Route): CompiledRoute {
  const parameterNames: string[] = [];
  let specificity = 0;
  const source = route.path
    .split('/')
    .map((segment) => {
      const greedy = /^\{(.+)\+\}$/.exec(segment);
      if (greedy) {
        parameterNames.push(greedy[1]!);
        specificity += 1000;
        return '(.+)';
      }
      const variable = /^\{(.+)\}$/.exec(segment);
      if (variable) {
        parameterNames.push(variable[1]!);
        specificity += 1;
        return '([^/]+)';
      }
      return escape(segment);
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), parameterNames, specificity };
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
      .sort((a, b) => a.specificity - b.specificity);
  }

  /** The route serving `method path`, else `$default` (or undefined when there is none). */
  match(method: string, path: string): RouteMatch | undefined {
    for (const candidate of this.compiled) {
      if (candidate.route.method !== method && candidate.route.method !== 'ANY') continue;
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      const pathParameters: Record<string, string> = {};
      candidate.parameterNames.forEach((name, i) => {
        pathParameters[name] = decodeURIComponent(found[i + 1]!);
      });
      return { route: candidate.route, pathParameters };
    }
    return this.fallback ? { route: this.fallback, pathParameters: {} } : undefined;
  }

  /** Whether some route serves this path under any method (405 rather than 404). */
  pathExists(path: string): boolean {
    return this.compiled.some((candidate) => candidate.pattern.test(path));
  }
}
