import { PostHog } from 'posthog-node';
import type { LocalServer } from '../helpers/local-server';
import { sharedLocalServer } from '../helpers/local-server';
import type { ApiEvent } from './sdk/events-api';
import { eventsApi, onePerson, settle } from './sdk/events-api';
import type { NodeRequest, NodeWireEvent } from './sdk/node-wire';
import { recordingFetch } from './sdk/node-wire';

/**
 * The real, unmodified SDKs against the real local server (`npm start`): posthog-node with gzip and
 * with `disableCompression` (posthog-js in Debian's headless Chromium is sdk-capture-browser.test.ts's,
 * so that the two wait for ingestion on two workers). What each SDK put on the
 * wire is recorded (posthog-node through its `fetch` option, posthog-js through the browser's
 * network events), then every event, identity merge and person property is read back through the
 * private events API.
 */

const step = 30_000;
/** Ingestion is asynchronous (capture → SQS → consumer): how long Flock gets to show an event. */
const ingestion = 30_000;

const secondsApart = (a: string, b: string): number => Math.abs(Date.parse(a) - Date.parse(b)) / 1000;

describe('posthog-node and posthog-js, unmodified, against the local server', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await sharedLocalServer('sdk-capture');
  }, 2 * step);

  afterAll(async () => {
    await server?.stop();
  });

  describe.each([
    { mode: 'default gzip', disableCompression: false, label: 'gzip' },
    { mode: 'disableCompression: true (plain JSON)', disableCompression: true, label: 'json' },
  ])('posthog-node 5, $mode', ({ disableCompression, label }) => {
    const user = `node-user-${label}`;
    const aliasId = `${user}-alias`;
    let requests: NodeRequest[];
    let sent: NodeWireEvent[];
    let stored: Map<string, ApiEvent>;
    const errors: unknown[] = [];

    beforeAll(async () => {
      // Prepare
      const events = eventsApi(server);
      const recorder = recordingFetch();
      requests = recorder.requests;
      const sentUuids = () => requests.flatMap((request) => request.events.map((event) => event.uuid));
      const client = new PostHog(server.credentials.projectApiKey, {
        host: server.credentials.apiUrl,
        flushAt: 1,
        flushInterval: 0,
        disableCompression,
        fetch: recorder.fetch,
      });
      client.on('error', (error) => errors.push(error));

      // Act: first the events whose `$set_once` must win...
      client.capture({
        distinctId: user,
        event: 'order placed',
        properties: {
          price: 42.5,
          currency: 'EUR',
          items: ['a', 'b'],
          shipping: { method: 'express', days: 2 },
          gift: false,
          $set: { plan: 'pro' },
          $set_once: { first_seen_via: 'order placed' },
        },
      });
      client.capture({ distinctId: user, event: 'page viewed in app', properties: { path: '/checkout' } });
      await client.flush();
      // ...stored before the rest is sent. Flock does not keep one distinct id's order across
      // requests yet (the test 'posthog-node on many app servers at once' shows it): here "first"
      // must mean "processed first", so that these tests check $set/$set_once themselves.
      await settle(
        () => events.read(sentUuids()),
        (found) => found.size === 2,
        ingestion,
      );
      client.capture({
        distinctId: user,
        event: 'plan upgraded',
        properties: {
          from: 'pro',
          to: 'enterprise',
          $set: { plan: 'enterprise' },
          $set_once: { first_seen_via: 'plan upgraded', upgraded_from: 'pro' },
        },
      });
      client.identify({
        distinctId: user,
        properties: {
          $set: { email: `${user}@example.com`, name: 'Ada' },
          $set_once: { signup_date: '2024-01-01' },
        },
      });
      client.alias({ distinctId: user, alias: aliasId });
      client.capture({ distinctId: aliasId, event: 'used alias', properties: { via: 'alias' } });
      await client.shutdown();

      sent = requests.flatMap((request) => request.events);
      stored = await settle(
        () => events.read(sent.map((event) => event.uuid)),
        (found) => found.size === sent.length && onePerson([...found.values()], [user, aliasId]),
        ingestion,
      );
    }, 3 * step);

    it(`sends every /batch/ request ${disableCompression ? 'as plain JSON' : 'gzip-compressed'} and gets 200`, () => {
      // Assess
      expect(errors).toEqual([]);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        expect(request).toMatchObject({
          contentType: 'application/json',
          contentEncoding: disableCompression ? undefined : 'gzip',
          gzip: !disableCompression,
          status: 200,
        });
      }
      expect(sent.map((event) => event.event).sort()).toEqual(
        [
          '$create_alias',
          '$identify',
          'order placed',
          'page viewed in app',
          'plan upgraded',
          'used alias',
        ].sort(),
      );
    });

    it('stores every event with the uuid, name, distinct id, properties and time it was sent with', () => {
      // Assess
      for (const wire of sent) {
        const event = stored.get(wire.uuid);
        expect({ uuid: wire.uuid, event }).toMatchObject({
          uuid: wire.uuid,
          event: {
            id: wire.uuid,
            event: wire.event,
            distinct_id: wire.distinct_id,
            properties: wire.properties,
          },
        });
        // Flock corrects the SDK's clock by `sent_at`: on one machine that moves it by milliseconds.
        expect(secondsApart(event!.timestamp, wire.timestamp)).toBeLessThan(5);
      }
    });

    it('applies $set in order and keeps the first $set_once, from events and identify()', () => {
      // Assess
      const person = stored.get(sent.find((event) => event.event === 'used alias')!.uuid)!.person;
      expect(person?.properties).toMatchObject({
        plan: 'enterprise',
        first_seen_via: 'order placed',
        upgraded_from: 'pro',
        email: `${user}@example.com`,
        name: 'Ada',
        signup_date: '2024-01-01',
      });
    });

    it('alias() merges the alias into the person: every event, either distinct id, one identified person', async () => {
      // Assess
      const events = [...stored.values()];
      expect(onePerson(events, [user, aliasId])).toBe(true);
      const person = events[0]!.person!;
      expect([...person.distinct_ids].sort()).toEqual([aliasId, user].sort());
      expect(person.is_identified).toBe(true);
      // and the person's events, by person id, are all of them
      const byPerson = await eventsApi(server).list(`person_id=${person.uuid}&limit=100`);
      expect(byPerson.map((event) => event.id).sort()).toEqual(sent.map((event) => event.uuid).sort());
    });
  });

  describe('posthog-node on many app servers at once', () => {
    // One app server per user, all busy at the same time: each sends its user's first event, waits
    // for Flock's 200, then sends the second. PostHog applies one distinct id's events in the order
    // they arrived (its capture partitions Kafka by token and distinct id).
    const users = Array.from({ length: 20 }, (_, i) => `busy-user-${i}`);
    let stored: Map<string, ApiEvent>;
    let sent: NodeWireEvent[];

    beforeAll(async () => {
      // Prepare
      const requests: NodeRequest[] = [];
      // Act
      await Promise.all(
        users.map(async (user) => {
          const recorder = recordingFetch();
          const client = new PostHog(server.credentials.projectApiKey, {
            host: server.credentials.apiUrl,
            flushAt: 1,
            flushInterval: 0,
            fetch: recorder.fetch,
          });
          client.capture({
            distinctId: user,
            event: 'plan chosen',
            properties: { $set: { plan: 'first' }, $set_once: { first_plan: 'first' } },
          });
          await client.flush();
          client.capture({
            distinctId: user,
            event: 'plan changed',
            properties: { $set: { plan: 'second' }, $set_once: { first_plan: 'second' } },
          });
          await client.shutdown();
          requests.push(...recorder.requests);
        }),
      );
      sent = requests.flatMap((request) => request.events);
      stored = await settle(
        () => eventsApi(server).read(sent.map((event) => event.uuid)),
        (found) => found.size === sent.length,
        ingestion,
      );
    }, 3 * step);

    it('applies each user’s $set and $set_once in the order its requests were sent', () => {
      // Assess
      expect(sent).toHaveLength(2 * users.length);
      expect(stored.size).toBe(sent.length);
      const personOf = (user: string) =>
        [...stored.values()].find((event) => event.distinct_id === user)?.person?.properties;
      expect(users.map((user) => ({ user, person: personOf(user) }))).toEqual(
        users.map((user) => ({ user, person: { plan: 'second', first_plan: 'first' } })),
      );
    });
  });
});
