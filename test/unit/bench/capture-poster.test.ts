import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { capturePoster } from '../../../bench/support/capture-poster';

const quick = { maxTries: 3, firstRetryMs: 1, maxRetryMs: 2 };

/** A capture stand-in answering each request with the next of `statuses` (the last one after that). */
async function answering(
  statuses: readonly number[],
): Promise<{ url: string; server: Server; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(statuses[Math.min(bodies.length, statuses.length) - 1]!);
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, bodies };
}

describe('capturePoster', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('sends a request answered 5xx again, the same body, and counts it', async () => {
    const capture = await answering([500, 503, 200]);
    server = capture.server;
    const poster = capturePoster(capture.url, 'phc_key', quick);

    await poster.post([{ event: 'a', distinct_id: 'u' }]);

    expect(capture.bodies).toHaveLength(3);
    expect(new Set(capture.bodies).size).toBe(1);
    expect(JSON.parse(capture.bodies[0]!)).toEqual({
      api_key: 'phc_key',
      batch: [{ event: 'a', distinct_id: 'u' }],
    });
    expect(poster.retries).toBe(2);
  });

  it('fails once its tries are spent', async () => {
    const capture = await answering([503]);
    server = capture.server;
    const poster = capturePoster(capture.url, 'phc_key', quick);

    await expect(poster.post([])).rejects.toThrow('capture answered 503');
    expect(capture.bodies).toHaveLength(3);
  });

  it('does not retry a 4xx', async () => {
    const capture = await answering([400]);
    server = capture.server;
    const poster = capturePoster(capture.url, 'phc_key', quick);

    await expect(poster.post([])).rejects.toThrow('capture answered 400');
    expect(capture.bodies).toHaveLength(1);
    expect(poster.retries).toBe(0);
  });
});
