import { gunzipSync } from 'node:zlib';
import type { PostHogOptions } from 'posthog-node';

type Fetch = NonNullable<PostHogOptions['fetch']>;
type Body = Parameters<Fetch>[1]['body'];

/** An event as posthog-node put it on the wire (`/batch/` envelope). */
export interface NodeWireEvent {
  readonly uuid: string;
  readonly event: string;
  readonly distinct_id: string;
  readonly timestamp: string;
  readonly properties: Record<string, unknown>;
}

/** One request posthog-node made, decoded, with Flock's answer. */
export interface NodeRequest {
  readonly url: string;
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
  /** The body started with gzip's magic bytes. */
  readonly gzip: boolean;
  readonly status: number;
  readonly events: readonly NodeWireEvent[];
}

async function bytesOf(body: Body): Promise<Buffer> {
  if (body === undefined) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Blob) return Buffer.from(await body.arrayBuffer());
  return Buffer.from(body as Uint8Array);
}

const header = (headers: Record<string, string>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

/**
 * posthog-node's documented `fetch` option, passing every request unchanged to the global `fetch`
 * (what the SDK uses without it) and keeping a decoded copy: the test then knows the exact events,
 * uuids and encoding the SDK sent, and what Flock answered.
 */
export function recordingFetch(): { fetch: Fetch; requests: NodeRequest[] } {
  const requests: NodeRequest[] = [];
  const fetchAndRecord: Fetch = async (url, options) => {
    const response = await fetch(url, options);
    if (options.method === 'POST' && new URL(url).pathname === '/batch/') {
      const body = await bytesOf(options.body);
      const gzip = body[0] === 0x1f && body[1] === 0x8b;
      const payload = JSON.parse((gzip ? gunzipSync(body) : body).toString('utf8')) as {
        batch: NodeWireEvent[];
      };
      requests.push({
        url,
        contentType: header(options.headers, 'content-type'),
        contentEncoding: header(options.headers, 'content-encoding'),
        gzip,
        status: response.status,
        events: payload.batch,
      });
    }
    return response;
  };
  return { fetch: fetchAndRecord, requests };
}
