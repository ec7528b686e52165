import { PayloadTooLargeError } from '../shared/http/errors';
import { logger } from '../shared/logger';
import { countDropped, countMetric, countPerProject, metricNames, timed } from '../shared/metrics';
import { routePath } from '../shared/http/request';
import { json } from '../shared/http/responses';
import type { HttpEvent, HttpResult, RouteFunction } from '../shared/http/types';
import type { CapturedEvent } from '../shared/queue/message';
import type { MessageEnvelope } from '../shared/queue/pack';
import { captureLimits } from '../shared/queue/definitions';
import { packMessages } from '../shared/queue/pack';
import { sendAll } from '../shared/queue/send';
import { projectOfRequest } from '../shared/public/authenticate';
import type { DecodedRequest } from '../shared/public/decode';
import { decodeRequest } from '../shared/public/decode';
import { missingApiKey } from '../shared/public/errors';
import { clientIp, sentAtOf, siteUrl } from './envelope';
import { captureDecodeError, eventsNotQueued } from './errors';
import { capturedEventsOf, rawEventsOf } from './payload';

export interface CaptureSettings {
  /** The single table, where project tokens and personal API keys are looked up. */
  readonly tableName: string;
  readonly queueUrl: string;
  /** Bodies above this, before or after decompression, are answered 413. */
  readonly maxBodyBytes: number;
  /** Reverse proxies in front of capture whose `X-Forwarded-For` entries locate the client. */
  readonly trustedProxies?: number;
}

/** Exactly 200 `{"status": 1}`: posthog-js's retry queue (`lib/src/retry-queue.js`) retries any other success status. */
const accepted = (): HttpResult => json(200, { status: 1 });

/** Preflights: the CORS middleware adds the headers; the body is capture's usual success. */
export async function preflight(): Promise<HttpResult> {
  return accepted();
}

/**
 * Events into as few queue messages as the limits allow. An event too large to store is dropped and
 * counted, as an invalid one is: the rest of its request is still queued.
 */
function pack(
  envelope: MessageEnvelope,
  events: readonly CapturedEvent[],
): { bodies: string[]; bodyBytes: number[]; queued: number } {
  const { bodies, bodyBytes, tooLarge } = packMessages(envelope, events);
  if (tooLarge.length > 0) {
    countDropped('too_large', tooLarge.length);
    logger.warn('Events dropped: each is larger than one event may be', {
      project_id: envelope.project_id,
      max_event_bytes: captureLimits.maxEventBytes,
      dropped: tooLarge.slice(0, 10).map(({ event, bytes }) => ({ uuid: event.uuid, bytes })),
      dropped_count: tooLarge.length,
    });
  }
  return { bodies, bodyBytes, queued: events.length - tooLarge.length };
}

/** The public decoding, its failures in capture's words (`invalid_payload`, `no_data`). */
function decode(event: HttpEvent, maxBodyBytes: number): DecodedRequest {
  try {
    return decodeRequest(event, maxBodyBytes);
  } catch (error) {
    throw captureDecodeError(error);
  }
}

/**
 * POST and GET on every capture path: decode, authenticate, validate every event, then enqueue them
 * all or answer 503 so the SDK retries (duplicates collapse on the event uuid downstream).
 */
export function captureEvents(settings: CaptureSettings): RouteFunction {
  const capture = async (event: HttpEvent): Promise<HttpResult> => {
    const now = new Date().toISOString();
    const { payload, form } = decode(event, settings.maxBodyBytes);
    const project = await projectOfRequest(settings.tableName, payload, form, event, missingApiKey);
    const rawEvents = rawEventsOf(payload, event.rawPath || routePath(event));
    if (rawEvents.length > captureLimits.maxEventsPerRequest) throw new PayloadTooLargeError();
    const events = capturedEventsOf(rawEvents);
    countMetric(metricNames.eventsReceived, rawEvents.length);
    countPerProject(metricNames.eventsReceived, new Map([[project.project_id, rawEvents.length]]));
    countDropped('invalid', rawEvents.length - events.length);
    if (events.length === 0) return accepted();
    const envelope: MessageEnvelope = {
      v: 1,
      project_id: project.project_id,
      now,
      sent_at: sentAtOf(payload, form, event),
      ip: project.anonymize_ips ? null : clientIp(event, settings.trustedProxies ?? 0),
      site_url: siteUrl(event),
    };
    const { bodies, bodyBytes, queued } = pack(envelope, events);
    if (bodies.length === 0) return accepted();
    if (!(await sendAll(settings.queueUrl, bodies, bodyBytes))) throw eventsNotQueued();
    countMetric(metricNames.eventsQueued, queued);
    return accepted();
  };
  return timed(metricNames.captureLatency, capture);
}
