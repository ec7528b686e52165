import { randomBytes } from 'node:crypto';
import {
  gatewayMaxBodyBytes,
  lambdaMaxEventBytes,
  maxRequestBodyBytes,
} from '../../functions/shared/http/body-limits';
import type { LocalServer } from '../helpers/local-server';
import { sharedLocalServer } from '../helpers/local-server';

/**
 * The body limits a client meets locally are AWS's (functions/shared/http/body-limits.ts): Flock answers
 * 413 in PostHog's shape above 4 MiB; API Gateway refuses bodies over 10 MB and Lambda events over 6 MB
 * with answers of their own, which the local server plays.
 */
describe('request body limits', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await sharedLocalServer('body-limits');
  }, 90_000);

  afterAll(async () => {
    await server.stop();
  });

  const post = async (path: string, body: Buffer | string, headers: Record<string, string>) => {
    const response = await fetch(`${server.credentials.apiUrl}${path}`, { method: 'POST', headers, body });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text) as unknown };
  };
  /** A JSON batch of exactly `bytes` bytes, in events of about 200 KB (each fits a queue message). */
  const batchOfSize = (bytes: number): string => {
    const event = (pad: number) =>
      `{"event":"big","distinct_id":"d","properties":{"pad":"${'x'.repeat(pad)}"}}`;
    const build = (events: readonly string[]) =>
      `{"api_key":"${server.credentials.projectApiKey}","batch":[${events.join(',')}]}`;
    const full: string[] = [];
    while (build([...full, event(200_000), event(0)]).length < bytes) full.push(event(200_000));
    return build([...full, event(bytes - build([...full, event(0)]).length)]);
  };
  const tooLarge = {
    type: 'client_error',
    code: 'request_too_large',
    detail: 'Request too large.',
    attr: null,
  };

  it('answers 413 in PostHog shape to a capture body one byte over the limit', async () => {
    const body = batchOfSize(maxRequestBodyBytes + 1);
    expect(Buffer.byteLength(body)).toBe(maxRequestBodyBytes + 1);
    const response = await post('/batch/', body, {
      'content-type': 'application/json',
    });
    expect(response).toEqual({ status: 413, body: tooLarge });
  });

  it('answers 413 in PostHog shape to a private API body over the limit', async () => {
    const name = 'x'.repeat(maxRequestBodyBytes);
    const response = await post('/api/projects/', JSON.stringify({ name }), {
      'content-type': 'application/json',
      authorization: `Bearer ${server.credentials.personalApiKey}`,
    });
    expect(response).toEqual({ status: 413, body: tooLarge });
  });

  it("answers as Lambda and API Gateway do when the function's event would exceed 6 MB", async () => {
    // Binary bodies reach the function base64-encoded: 4/3 of 5 MiB is over Lambda's limit.
    const body = randomBytes(5 * 1024 * 1024);
    expect((body.length * 4) / 3).toBeGreaterThan(lambdaMaxEventBytes);
    const response = await post('/batch/', body, { 'content-type': 'application/octet-stream' });
    expect(response).toEqual({ status: 500, body: { message: 'Internal Server Error' } });
  });

  it("answers API Gateway's own 413 to a body over its 10 MB quota", async () => {
    const response = await post('/batch/', batchOfSize(gatewayMaxBodyBytes + 1), {
      'content-type': 'application/json',
    });
    expect(response).toEqual({ status: 413, body: { message: 'Request Entity Too Large' } });
  });
});
