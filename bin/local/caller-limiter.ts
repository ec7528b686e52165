import { createHash } from 'node:crypto';
import type { Clock } from '../../functions/shared/cache';
import { boundedCache } from '../../functions/shared/cache';
import type { CallerLimits } from '../../functions/shared/http/caller-limits';
import { callerLimitWindowSeconds, isPrivatePath } from '../../functions/shared/http/caller-limits';

/** One caller's token bucket: `tokens` as of `at` (ms). */
interface Bucket {
  tokens: number;
  at: number;
}

export interface CallerRequest {
  readonly path: string;
  readonly sourceIp: string;
  /** The `Authorization` header, if any. */
  readonly authorization?: string;
}

export interface CallerLimiterOptions {
  /** Callers tracked at most; past it the least recently seen is forgotten. @default 10_000 */
  readonly maxCallers?: number;
  readonly clock?: Clock;
}

/**
 * The local gateway's per-caller limits, as the edge's WAF rate-based rules count them on AWS: a token
 * bucket per personal API key on the private API, per IP address on the private API and per IP address
 * on the public endpoints. A bucket holds a window's limit and refills at limit per window; a limit of
 * 0 is off. Every map is bounded: a caller forgotten (least recently seen, or idle for a whole window,
 * which refills its bucket anyway) starts again with a full bucket.
 */
export class CallerLimiter {
  private readonly buckets;
  private readonly clock: Clock;

  constructor(
    private readonly limits: CallerLimits,
    options: CallerLimiterOptions = {},
  ) {
    this.clock = options.clock ?? { now: () => Date.now() };
    this.buckets = boundedCache<string, Bucket>({
      max: options.maxCallers ?? 10_000,
      ttlMs: callerLimitWindowSeconds * 1000,
      clock: this.clock,
    });
  }

  /**
   * Counts `request` against every limit it falls under: 0 when admitted, else the whole seconds
   * until each of its buckets holds a token again (nothing is taken from any bucket then).
   */
  admit(request: CallerRequest): number {
    const counted = this.bucketsOf(request);
    const now = this.clock.now();
    let waitSeconds = 0;
    for (const [id, limit] of counted) {
      const bucket = this.refilled(id, limit, now);
      if (bucket.tokens < 1)
        waitSeconds = Math.max(waitSeconds, Math.ceil(((1 - bucket.tokens) * this.msPerToken(limit)) / 1000));
    }
    if (waitSeconds > 0) return waitSeconds;
    for (const [id] of counted) this.buckets.get(id)!.tokens -= 1;
    return 0;
  }

  /** The buckets (id, limit) a request counts against; ids never hold a key itself, only its hash. */
  private bucketsOf(request: CallerRequest): [string, number][] {
    const counted: [string, number][] = [];
    const add = (id: string, limit: number): void => {
      if (limit > 0) counted.push([id, limit]);
    };
    if (!isPrivatePath(request.path)) {
      add(`public-ip ${request.sourceIp}`, this.limits.perIpPublic);
      return counted;
    }
    add(`private-ip ${request.sourceIp}`, this.limits.perIpPrivate);
    if (request.authorization !== undefined && request.authorization !== '') {
      const key = createHash('sha256').update(request.authorization).digest('base64url');
      add(`key ${key}`, this.limits.perKey);
    }
    return counted;
  }

  private msPerToken(limit: number): number {
    return (callerLimitWindowSeconds * 1000) / limit;
  }

  private refilled(id: string, limit: number, now: number): Bucket {
    const bucket = this.buckets.get(id);
    if (!bucket) {
      const fresh = { tokens: limit, at: now };
      this.buckets.set(id, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(limit, bucket.tokens + (now - bucket.at) / this.msPerToken(limit));
    bucket.at = now;
    // Seen again: its window starts over (lru-cache's TTL counts from the last set).
    this.buckets.set(id, bucket);
    return bucket;
  }
}
