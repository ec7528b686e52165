import { randomUUID } from 'node:crypto';
import { privateApi, rawRequest } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';

interface StoredEvent {
  event: string;
  properties: Record<string, unknown>;
}

const geoipPlugin = 1;
/** What a client behind CloudFront's viewer address wrote itself: never to be believed. */
const forged = '6.6.6.6';
/** The viewer address CloudFront saw and appended (a London address in GeoLite2 City). */
const viewer = '81.2.69.160';

/**
 * `$ip` and GeoIP behind a reverse proxy (CloudFront on the customer's domain): the local server sees
 * every request from 127.0.0.1, as API Gateway sees CloudFront's edge, with the header CloudFront sends.
 */
describe.each([
  { trustedProxies: 0, located: '127.0.0.1', country: 'AU' },
  { trustedProxies: 1, located: viewer, country: 'GB' },
])('capture with $trustedProxies trusted proxies', ({ trustedProxies, located, country }) => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer({ trustedProxies });
  });

  afterAll(async () => {
    await server.stop();
  });

  async function captureThroughProxy(token: string, event: string, forwardedFor: string): Promise<void> {
    const response = await rawRequest(server, 'POST', '/batch/', {
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({
        api_key: token,
        batch: [{ uuid: randomUUID(), event, distinct_id: 'visitor', properties: {} }],
      }),
    });
    expect(response.status).toBe(200);
  }

  const storedEvent = (projectId: number, name: string) =>
    eventually(`the ${name} event`, async () => {
      const page = await privateApi(server).get<{ results: StoredEvent[] }>(
        `/api/projects/${projectId}/events/?event=${name}`,
      );
      return page.body.results[0];
    });

  it(`locates the event at ${located}, never at what the client wrote`, async () => {
    // GIVEN a project with GeoIP
    const project = await newProject(server, `Proxied ${trustedProxies}`);
    const created = await privateApi(server).post(project.configs, {
      plugin: geoipPlugin,
      enabled: true,
      order: 1,
    });
    expect(created.status).toBe(201);
    // WHEN the proxy forwards an event with the client's own entry left of the viewer address
    await captureThroughProxy(project.token, 'proxied', `${forged}, ${viewer}`);
    // THEN
    const event = await storedEvent(project.id, 'proxied');
    expect(event.properties).toMatchObject({ $ip: located, $geoip_country_code: country });
  });

  it('falls back to the source address for a malformed or too short chain', async () => {
    const project = await newProject(server, `Malformed ${trustedProxies}`);
    await captureThroughProxy(project.token, 'malformed', 'not-an-address');
    await captureThroughProxy(project.token, 'overlong', `${'9.9.9.9,'.repeat(600)}${viewer}`);
    for (const name of ['malformed', 'overlong'])
      expect((await storedEvent(project.id, name)).properties.$ip).toBe('127.0.0.1');
  });
});
