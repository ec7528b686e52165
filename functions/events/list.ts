import { z } from 'zod';
import { authenticate, resolveProject } from '../shared/auth/private-api';
import { envNames, eventsTableEnv, loadConfig, singleTableEnv } from '../shared/config';
import { eventIndexes } from '../shared/db/event-index';
import { listNewestEvents } from '../shared/db/events';
import type { StoredEvent } from '../shared/domain/event';
import { ValidationError } from '../shared/http/errors';
import { baseUrl } from '../shared/http/request';
import { json } from '../shared/http/responses';
import type { HttpEvent, HttpResult } from '../shared/http/types';

const config = loadConfig(eventsTableEnv.and(singleTableEnv));

const query = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().optional(),
});

/** The keyset cursor of `next`: the last event returned, so the next page starts right after it. */
const cursorSchema = z.tuple([z.string(), z.string()]);

function decodeCursor(raw: string | undefined): { timestamp: string; uuid: string } | undefined {
  if (raw === undefined) return undefined;
  try {
    const [timestamp, uuid] = cursorSchema.parse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
    return { timestamp, uuid };
  } catch {
    throw new ValidationError('invalid_input', 'Invalid cursor.', 'cursor');
  }
}

const encodeCursor = (event: StoredEvent): string =>
  Buffer.from(JSON.stringify([event.timestamp, event.uuid])).toString('base64url');

/** An event in the spec's shape (§2.7). */
export function serializeEvent(event: StoredEvent) {
  return {
    id: event.uuid,
    distinct_id: event.distinctId,
    properties: event.properties,
    event: event.event,
    timestamp: event.timestamp,
    person: null,
    elements: [],
    elements_chain: event.elementsChain,
  };
}

function nextUrl(event: HttpEvent, cursor: string): string {
  const params = new URLSearchParams(event.rawQueryString);
  params.set('cursor', cursor);
  return `${baseUrl(event)}${event.rawPath}?${params.toString()}`;
}

/** `GET /api/projects/:project_id/events/`: the project's events, newest first. */
export async function listEvents(event: HttpEvent): Promise<HttpResult> {
  const caller = await authenticate(event, config[envNames.singleTable]);
  const project = await resolveProject(
    caller,
    event.pathParameters?.project_id,
    config[envNames.singleTable],
  );
  const { limit, cursor } = query.parse(event.queryStringParameters ?? {});
  const before = decodeCursor(cursor);
  const page = await listNewestEvents(
    config[envNames.eventsTable],
    project.id,
    eventIndexes.all,
    '',
    limit + 1,
    {
      before,
    },
  );
  const hasMore = page.length > limit;
  const results = page.slice(0, limit);
  const last = results[results.length - 1];
  return json(200, {
    // Exact only when this single page holds every event; otherwise unknown without a scan (DESIGN.md).
    count: !hasMore && !before ? results.length : null,
    next: hasMore && last ? nextUrl(event, encodeCursor(last)) : null,
    previous: null,
    results: results.map(serializeEvent),
  });
}
