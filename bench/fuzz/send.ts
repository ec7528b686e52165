import { RouteMatcher } from '../../functions/shared/http/route-match';
import { routeKey, routes } from '../../functions/routes';
import { isDocumentedErrorBody, isJsonResponse } from './shape';
import type { FuzzRequest } from './types';

/** What the corpus got back. */
export interface Outcome {
  readonly request: FuzzRequest;
  /** 0 when no response came (the connection failed or timed out). */
  readonly status: number;
  readonly body: string;
  readonly contentType: string | null;
  readonly transportError?: string;
  /** From the request's start to its body's end. */
  readonly ms: number;
  /** When it was sent (`performance.now()`), to tell a burst of slow answers from a slow input. */
  readonly at: number;
}

/** A request that takes longer than this is a finding: some input holds the function. */
export const slowRequestMs = 1000;

export interface Tally {
  sent: number;
  byClass: Record<string, number>;
  serverErrors: Outcome[];
  undocumented: Outcome[];
  /** 4xx answers whose body is not JSON (HEAD, PostHog's bodiless 404s, the HTTP server's own). */
  notJson4xx: Outcome[];
  transportErrors: Outcome[];
  /** Route-table rows some request reached. */
  routeKeys: Set<string>;
  /** Answers that took longer than `slowRequestMs`. */
  slow: Outcome[];
  slowest?: Outcome;
}

const matcher = new RouteMatcher(routes);

/** The route-table row API Gateway would pick for a request (for the coverage figure). */
function routeOf(request: FuzzRequest): string | undefined {
  try {
    const match = matcher.match(request.method, new URL(request.path, 'http://x').pathname);
    return match ? routeKey(match.route) : undefined;
  } catch {
    return undefined;
  }
}

export async function send(apiUrl: string, request: FuzzRequest): Promise<Outcome> {
  const url = `${apiUrl}${request.path}${request.query === undefined ? '' : `?${request.query}`}`;
  const started = performance.now();
  const at = Math.round(started);
  const ms = (): number => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(60_000),
    });
    const body = await response.text();
    return {
      request,
      status: response.status,
      body,
      contentType: response.headers.get('content-type'),
      ms: ms(),
      at,
    };
  } catch (error) {
    const cause = (error as { cause?: Error }).cause;
    return {
      request,
      status: 0,
      body: '',
      contentType: null,
      transportError: `${(error as Error).message}${cause ? `: ${cause.name}: ${cause.message}` : ''}`,
      ms: ms(),
      at,
    };
  }
}

/** Sends every request, `concurrency` at a time, and tallies what came back. */
export async function runCorpus(
  apiUrl: string,
  corpus: readonly FuzzRequest[],
  concurrency: number,
): Promise<Tally> {
  const tally: Tally = {
    sent: 0,
    byClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 },
    serverErrors: [],
    undocumented: [],
    notJson4xx: [],
    transportErrors: [],
    routeKeys: new Set(),
    slow: [],
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < corpus.length) {
        const request = corpus[next++]!;
        const route = routeOf(request);
        if (route) tally.routeKeys.add(route);
        const outcome = await send(apiUrl, request);
        tally.sent++;
        if (outcome.ms > slowRequestMs) tally.slow.push(outcome);
        if (!tally.slowest || outcome.ms > tally.slowest.ms) tally.slowest = outcome;
        if (outcome.status === 0) {
          tally.transportErrors.push(outcome);
          continue;
        }
        const statusClass = `${Math.floor(outcome.status / 100)}xx`;
        tally.byClass[statusClass] = (tally.byClass[statusClass] ?? 0) + 1;
        if (outcome.status >= 500) tally.serverErrors.push(outcome);
        else if (outcome.status >= 400 && !isJsonResponse(outcome.contentType))
          tally.notJson4xx.push(outcome);
        else if (
          outcome.status >= 400 &&
          request.method !== 'HEAD' &&
          !isDocumentedErrorBody(outcome.body, outcome.status)
        )
          tally.undocumented.push(outcome);
      }
    }),
  );
  return tally;
}
