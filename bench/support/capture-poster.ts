import { backoff } from '../../functions/shared/backoff';

/** How a bench's client retries a capture request answered 5xx. */
export interface RetryPolicy {
  /** Tries of one request; past them the request fails. */
  readonly maxTries: number;
  readonly firstRetryMs: number;
  readonly maxRetryMs: number;
}

/** As PostHog's SDKs do, roughly: a few tries, seconds apart. */
export const sdkRetries: RetryPolicy = { maxTries: 4, firstRetryMs: 1000, maxRetryMs: 8000 };

/** Posts `/batch/` requests for one project, counting the requests it sent again. */
export interface CapturePoster {
  post(batch: readonly Record<string, unknown>[]): Promise<void>;
  /** Requests sent again after a 5xx. */
  readonly retries: number;
}

/**
 * A bench's capture client: a request answered 5xx (a function that timed out on a starved machine)
 * is sent again after a backoff, as an SDK does, and counted; any other answer than 200 fails it.
 */
export function capturePoster(
  apiUrl: string,
  apiKey: string,
  policy: RetryPolicy = sdkRetries,
): CapturePoster {
  let retries = 0;
  const post = async (batch: readonly Record<string, unknown>[], tries = 1): Promise<void> => {
    const response = await fetch(`${apiUrl}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: apiKey, batch }),
    });
    if (response.status === 200) return;
    const answer = `capture answered ${response.status}: ${await response.text()}`;
    if (response.status < 500 || tries >= policy.maxTries) throw new Error(answer);
    retries++;
    await backoff(tries, policy.firstRetryMs, policy.maxRetryMs);
    await post(batch, tries + 1);
  };
  return {
    post: (batch) => post(batch),
    get retries() {
      return retries;
    },
  };
}
