import { envNames, ingestQueueEnv, loadConfig, maxBodyEnv, singleTableEnv } from '../shared/config';
import {
  AuthenticationError,
  PayloadTooLargeError,
  ServiceUnavailableError,
} from '../shared/http/errors';
import { bodyBytes, header } from '../shared/http/request';
import { json } from '../shared/http/responses';
import type { HttpEvent, HttpResult } from '../shared/http/types';
import type { CapturedEvent } from '../shared/queue/message';
import { EventTooLargeError, packMessages } from '../shared/queue/pack';
import { sendAll } from '../shared/queue/send';
import { DecompressedTooLargeError, decodePayload } from './decode';
import { captureEvent, rawEventsOf, tokenOf } from './payload';
import { projectOfToken } from './projects';

const config = loadConfig(singleTableEnv.and(ingestQueueEnv).and(maxBodyEnv));
const tableName = config[envNames.singleTable];
const queueUrl = config[envNames.ingestQueueUrl];
const maxBodyBytes = config[envNames.maxBodyBytes];

/** Exactly 200 `{"status": 1}`: posthog-js retries any other success status (sdk-wire §3.4). */
const accepted = (): HttpResult => json(200, { status: 1 });

export async function preflight(): Promise<HttpResult> {
  return accepted();
}

/** The client address: first entry of X-Forwarded-For (IPv4 port stripped), else the source IP. */
function clientIp(event: HttpEvent): string | null {
  const forwarded = header(event, 'x-forwarded-for')?.split(',')[0]?.trim();
  const ip = forwarded || event.requestContext.http.sourceIp || null;
  return ip && /^\d+\.\d+\.\d+\.\d+:\d+$/.test(ip) ? ip.slice(0, ip.lastIndexOf(':')) : ip;
}

function siteUrl(event: HttpEvent): string | null {
  const host = header(event, 'host') ?? event.requestContext.domainName;
  return host ? `${header(event, 'x-forwarded-proto') ?? 'https'}://${host}` : null;
}

function sentAtOf(payload: unknown): string | null {
  const sentAt = (payload as { sent_at?: unknown } | null)?.sent_at;
  return typeof sentAt === 'string' && sentAt !== '' ? sentAt : null;
}

export async function capture(event: HttpEvent): Promise<HttpResult> {
  if (bodyBytes(event).length > maxBodyBytes) throw new PayloadTooLargeError();
  let payload: unknown;
  try {
    payload = decodePayload(event, maxBodyBytes);
  } catch (error) {
    if (error instanceof DecompressedTooLargeError) throw new PayloadTooLargeError();
    throw error;
  }

  const token = tokenOf(payload);
  if (token === undefined) {
    throw new AuthenticationError(
      'missing_api_key',
      'API key not provided. You can find your project API key in PostHog project settings.',
    );
  }
  if (typeof token !== 'string') {
    throw new AuthenticationError('not_string', 'Provided API key is not valid: not_string');
  }
  const project = await projectOfToken(tableName, token.trim());
  if (!project) {
    throw new AuthenticationError(
      'invalid_api_key',
      'Project API key invalid. You can find your project API key in PostHog project settings.',
    );
  }

  const events = rawEventsOf(payload)
    .map(captureEvent)
    .filter((captured): captured is CapturedEvent => captured !== undefined);
  if (events.length === 0) return accepted();

  let bodies: string[];
  try {
    bodies = packMessages(
      {
        v: 1,
        project_id: project.project_id,
        now: new Date().toISOString(),
        sent_at: sentAtOf(payload),
        ip: project.anonymize_ips ? null : clientIp(event),
        site_url: siteUrl(event),
      },
      events,
    );
  } catch (error) {
    if (error instanceof EventTooLargeError) throw new PayloadTooLargeError();
    throw error;
  }
  if (!(await sendAll(queueUrl, bodies))) {
    throw new ServiceUnavailableError('Events could not be queued. Please retry.', 'queue_unavailable');
  }
  return accepted();
}

