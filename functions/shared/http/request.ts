import { NotFoundError } from './errors';
import type { HttpEvent } from './types';

/** Header lookup that ignores case (API Gateway lower-cases them; the local server too, but be safe). */
export function header(event: HttpEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** The integer id a path variable names (`{id}`); anything else is 404, as an unknown id is. */
export function integerPathId(event: HttpEvent, name = 'id'): number {
  const raw = event.pathParameters?.[name] ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw new NotFoundError();
  return Number(raw);
}

export function queryParam(event: HttpEvent, name: string): string | undefined {
  return event.queryStringParameters?.[name];
}

/** The raw request body as bytes, honouring API Gateway's base64 encoding of binary bodies. */
export function bodyBytes(event: HttpEvent): Buffer {
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** `https://host/stage` of the request, to build absolute URLs the way the client reached us. */
export function baseUrl(event: HttpEvent): string {
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const host = header(event, 'host') ?? event.requestContext.domainName;
  const stage = event.requestContext.stage;
  const stagePrefix = stage && stage !== '$default' ? `/${stage}` : '';
  return `${proto}://${host}${stagePrefix}`;
}

/** The API Gateway route path of this request (`/api/projects/{project_id}/events/`). */
export function routePath(event: HttpEvent): string {
  const key = event.routeKey;
  const space = key.indexOf(' ');
  return space === -1 ? key : key.slice(space + 1);
}
