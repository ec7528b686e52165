import { request } from 'node:http';
import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { startLocalServer } from '../helpers/local-server';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

/** One POST of `body` to `path`, sent from the local address `from` (a loopback address of its own). */
function postFrom(
  server: LocalServer,
  from: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const url = new URL(path, server.credentials.apiUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', origin: 'https://shop.example', ...headers },
        agent: false,
      },
      (incoming) => {
        let text = '';
        incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode!,
            headers: incoming.headers,
            body: JSON.parse(text) as unknown,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}

const throttled = {
  type: 'throttled_error',
  code: 'throttled',
  detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/),
  attr: null,
};

describe('per-caller flood limits of the local gateway (the edge WAF on AWS)', () => {
  let server: LocalServer;
  const perKey = 5;
  const perIpPublic = 5;

  beforeAll(async () => {
    server = await startLocalServer({ callerLimits: { perKey, perIpPublic, perIpPrivate: 1_000 } });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('answers 429 throttled to one key flooding a private route while another key on it is still served', async () => {
    // Prepare: a second key of the same user.
    const second = await privateApi(server).post<{ value: string }>('/api/personal_api_keys/', {
      label: 'second',
    });
    expect(second.status).toBe(201);
    const path = `/api/projects/${server.credentials.projectId}/`;

    // Act: the first key floods the route.
    const flood = [];
    for (let i = 0; i < perKey * 2; i++) flood.push(await privateApi(server).get(path));
    const other = await privateApi(server, second.body.value).get(path);

    // Assess
    const refused = flood.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(perKey);
    expect(refused[0]!.body).toEqual(throttled);
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(other.status).toBe(200);
  });

  it('keeps serving capture to one IP address while another floods it', async () => {
    // Prepare
    const event = {
      api_key: server.credentials.projectApiKey,
      event: 'flood',
      properties: { distinct_id: 'flooder' },
    };

    // Act: 127.0.0.2 floods capture, then 127.0.0.1 sends one event.
    const flood: Answer[] = [];
    for (let i = 0; i < perIpPublic * 2; i++)
      flood.push(await postFrom(server, '127.0.0.2', '/capture/', event));
    const other = await postFrom(server, '127.0.0.1', '/capture/', { ...event, event: 'calm' });

    // Assess: the flooder meets 429 in PostHog's shape, readable by a browser SDK; the other is served.
    const refused = flood.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(perIpPublic);
    expect(refused[0]).toMatchObject({
      body: throttled,
      headers: { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After' },
    });
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(other).toMatchObject({ status: 200, body: { status: 1 } });
  });
});
