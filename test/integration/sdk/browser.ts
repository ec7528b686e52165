import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Browser, Page, Request } from 'playwright-core';
import { chromium } from 'playwright-core';
import { environmentValue } from '../../../bin/environment';

const root = resolve(__dirname, '../../..');

/** Where Chromium is: `CHROMIUM_PATH` if set, else Debian's package (README, Requirements). */
function chromiumPath(): string {
  const path = environmentValue('CHROMIUM_PATH') ?? '/usr/bin/chromium';
  if (!existsSync(path))
    throw new Error(
      `Chromium not found at ${path}: install it (apt-get install chromium) or set CHROMIUM_PATH to its executable.`,
    );
  return path;
}

/** Chromium, headless, with nothing of its own on the network (as the flags SDK test runs it). */
export async function launchChromium(timeoutMs: number): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: timeoutMs,
  });
}

export interface PageServer {
  /** The page's URL: on another port than Flock's API, so every call from the page is cross-origin. */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `html` at `/` and posthog-js's full browser bundle, unmodified from node_modules, at `/posthog.js`. */
export async function servePage(html: string): Promise<PageServer> {
  const script = readFileSync(join(root, 'node_modules/posthog-js/dist/array.full.js'));
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/posthog.js')) {
      response.writeHead(200, { 'content-type': 'application/javascript' }).end(script);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** An event as posthog-js put it on the wire (the `/e/` capture envelope). */
export interface WireEvent {
  readonly uuid: string;
  readonly event: string;
  readonly properties: Record<string, unknown>;
  readonly timestamp?: string;
  readonly $set?: Record<string, unknown>;
  readonly $set_once?: Record<string, unknown>;
}

/** One capture request the page made, decoded, with Flock's answer. */
export interface CaptureRequest {
  readonly url: string;
  readonly contentType: string;
  /** The body started with gzip's magic bytes (posthog-js sends no Content-Encoding header). */
  readonly gzip: boolean;
  readonly status: number | undefined;
  readonly events: readonly WireEvent[];
}

function decodeBody(body: Buffer, contentType: string): unknown {
  const gzip = body[0] === 0x1f && body[1] === 0x8b;
  let text = (gzip ? gunzipSync(body) : body).toString('utf8');
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    text = Buffer.from(new URLSearchParams(text).get('data') ?? '', 'base64').toString('utf8');
  }
  return JSON.parse(text);
}

function eventsOf(payload: unknown): WireEvent[] {
  if (Array.isArray(payload)) return payload as WireEvent[];
  const batch = (payload as { batch?: unknown }).batch;
  return Array.isArray(batch) ? (batch as WireEvent[]) : [payload as WireEvent];
}

/**
 * Records every finished request from `page` to a capture path of `apiUrl` (`/e/`, `/i/v0/e/`),
 * decoded as a server would, so a test knows exactly which events (uuids, properties) the SDK sent
 * and what Flock answered.
 */
export function recordCaptureRequests(page: Page, apiUrl: string): CaptureRequest[] {
  const requests: CaptureRequest[] = [];
  const isCapture = (request: Request): boolean => {
    if (request.method() !== 'POST' || !request.url().startsWith(apiUrl)) return false;
    const path = new URL(request.url()).pathname;
    return path === '/e/' || path === '/i/v0/e/';
  };
  const record = async (request: Request): Promise<void> => {
    if (!isCapture(request)) return;
    const body = request.postDataBuffer() ?? Buffer.alloc(0);
    const contentType = (await request.allHeaders())['content-type'] ?? '';
    const response = await request.response();
    requests.push({
      url: request.url(),
      contentType,
      gzip: body[0] === 0x1f && body[1] === 0x8b,
      status: response?.status(),
      events: eventsOf(decodeBody(body, contentType)),
    });
  };
  page.on('requestfinished', (request) => void record(request));
  page.on('requestfailed', (request) => void record(request));
  return requests;
}

/** The events of the requests Flock accepted (exactly 200, as posthog-js's retry queue requires). */
export function acceptedEvents(requests: readonly CaptureRequest[]): WireEvent[] {
  return requests.filter((request) => request.status === 200).flatMap((request) => request.events);
}

/**
 * The test page: posthog-js from node_modules with Flock as its API host, as a site would set it up,
 * plus what an automated browser needs (`opt_out_useragent_filter`, else posthog-js drops every
 * event as bot traffic) and nothing kept between runs (`persistence: 'memory'`). Batching and
 * compression are left to their defaults: the test waits for the requests instead.
 */
export const posthogJsPage = `<!doctype html>
<html>
  <head><script src="/posthog.js"></script></head>
  <body>
    <script>
      const settings = JSON.parse(new URLSearchParams(location.search).get('settings'));
      window.posthogLoaded = new Promise((resolve) => {
        posthog.init(settings.token, {
          api_host: settings.apiHost,
          persistence: 'memory',
          opt_out_useragent_filter: true,
          loaded: () => resolve(),
        });
      });
    </script>
  </body>
</html>`;
