import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { PostHog as BrowserPostHog } from 'posthog-js';
import type { LocalServer } from '../helpers/local-server';
import { sharedLocalServer } from '../helpers/local-server';
import type { CaptureRequest, PageServer, WireEvent } from './sdk/browser';
import {
  acceptedEvents,
  launchChromium,
  posthogJsPage,
  recordCaptureRequests,
  servePage,
} from './sdk/browser';
import type { ApiEvent } from './sdk/events-api';
import { eventsApi, onePerson, settle } from './sdk/events-api';

/**
 * posthog-js, unmodified, in Debian's headless Chromium against the real local server (`npm start`):
 * what it put on the wire is recorded through the browser's network events, then every event,
 * identity merge and person property is read back through the private events API (posthog-node is
 * sdk-capture.test.ts's).
 */

const step = 30_000;
/** Ingestion is asynchronous (capture → SQS → consumer): how long Flock gets to show an event. */
const ingestion = 30_000;
const posthogJsVersion = (
  JSON.parse(readFileSync(join(__dirname, '../../node_modules/posthog-js/package.json'), 'utf8')) as {
    version: string;
  }
).version;

describe('posthog-js, unmodified, against the local server', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await sharedLocalServer('sdk-capture-browser');
  }, 2 * step);

  afterAll(async () => {
    await server?.stop();
  });

  describe('posthog-js in headless Chromium', () => {
    const user = 'browser-user-1';
    let browser: Browser;
    let pages: PageServer;
    let tab: Page;
    let requests: CaptureRequest[];
    let sent: WireEvent[];
    let stored: Map<string, ApiEvent>;
    let deviceId: string;
    let compression: unknown;
    const consoleErrors: string[] = [];

    type Window = { posthog: BrowserPostHog & { compression?: string } };
    const sentNames = () => new Set(acceptedEvents(requests).map((event) => event.event));
    /** Waits until posthog-js has sent events of these names (batched ones go out every 3 s). */
    const sentAll = async (names: readonly string[]): Promise<void> => {
      await settle(
        async () => sentNames(),
        (seen) => names.every((name) => seen.has(name)),
        step,
      );
      expect([...sentNames()]).toEqual(expect.arrayContaining([...names]));
    };

    beforeAll(async () => {
      // Prepare
      const events = eventsApi(server);
      pages = await servePage(posthogJsPage);
      browser = await launchChromium(step);
      tab = await browser.newPage();
      tab.setDefaultTimeout(step);
      tab.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      requests = recordCaptureRequests(tab, server.credentials.apiUrl);
      const settings = { token: server.credentials.projectApiKey, apiHost: server.credentials.apiUrl };
      await tab.goto(`${pages.url}?settings=${encodeURIComponent(JSON.stringify(settings))}`);
      await tab.evaluate('window.posthogLoaded');

      // Act: anonymous events, then identify(), then more events as the identified user
      deviceId = await tab.evaluate(() => {
        const { posthog } = globalThis as unknown as Window;
        posthog.capture('browser custom', {
          plan: 'pro',
          price: 9.5,
          tags: ['a', 'b'],
          nested: { depth: 1, ok: true },
        });
        posthog.capture('browser anonymous step', { step: 1 });
        return posthog.get_distinct_id();
      });
      await tab.evaluate((id) => {
        const { posthog } = globalThis as unknown as Window;
        posthog.identify(id, { email: 'bea@example.com', name: 'Bea' }, { first_seen: '2024-05-01' });
        posthog.capture('browser identified step', { step: 2 });
      }, user);
      await sentAll(['browser custom', 'browser anonymous step', '$identify', 'browser identified step']);
      // $set_once again, once identify() is processed (order across requests: see the test above)
      const identify = acceptedEvents(requests).find((event) => event.event === '$identify')!;
      await settle(
        () => events.byUuid(identify.uuid),
        (event) => event?.person?.properties.email !== undefined,
        ingestion,
      );
      compression = await tab.evaluate(() => {
        const { posthog } = globalThis as unknown as Window;
        posthog.setPersonProperties({ plan: 'team' }, { first_seen: 'later' });
        return posthog.compression;
      });
      await sentAll(['$set']);

      sent = acceptedEvents(requests);
      stored = await settle(
        () => events.read(sent.map((event) => event.uuid)),
        (found) => found.size === sent.length && onePerson([...found.values()], [deviceId, user]),
        ingestion,
      );
    }, 4 * step);

    afterAll(async () => {
      await browser?.close();
      await pages?.close();
    });

    it('uses gzip (text/plain, no preflight) as Flock’s remote config asks, and every request gets 200', () => {
      // Assess
      expect(compression).toBe('gzip-js');
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        expect(request).toMatchObject({ contentType: 'text/plain', gzip: true, status: 200 });
      }
      expect(consoleErrors).toEqual([]);
    });

    it('stores every event it sent, with its properties, uuid and distinct id', () => {
      // Assess
      for (const wire of sent) {
        const event = stored.get(wire.uuid);
        expect({ uuid: wire.uuid, event }).toMatchObject({
          uuid: wire.uuid,
          event: { id: wire.uuid, event: wire.event, distinct_id: wire.properties.distinct_id },
        });
      }
      const custom = [...stored.values()].find((event) => event.event === 'browser custom')!;
      expect(custom.distinct_id).toBe(deviceId);
      expect(custom.properties).toMatchObject({
        plan: 'pro',
        price: 9.5,
        tags: ['a', 'b'],
        nested: { depth: 1, ok: true },
        $lib: 'web',
        $lib_version: posthogJsVersion,
        $device_id: deviceId,
      });
    });

    it('keeps the properties posthog-js sent, and identify()’s top-level $set/$set_once in properties', () => {
      // Assess
      for (const wire of sent) {
        expect({ uuid: wire.uuid, properties: stored.get(wire.uuid)?.properties }).toMatchObject({
          uuid: wire.uuid,
          properties: wire.properties,
        });
      }
      const identify = sent.find((event) => event.event === '$identify')!;
      expect(stored.get(identify.uuid)?.properties).toMatchObject({
        $anon_distinct_id: deviceId,
        $set: { email: 'bea@example.com', name: 'Bea' },
        $set_once: { first_seen: '2024-05-01' },
      });
    });

    it('puts the anonymous and the identified events on one identified person', () => {
      // Assess
      const events = [...stored.values()];
      expect(events.filter((event) => event.distinct_id === deviceId).map((event) => event.event)).toEqual(
        expect.arrayContaining(['browser custom', 'browser anonymous step']),
      );
      expect(events.filter((event) => event.distinct_id === user).map((event) => event.event)).toEqual(
        expect.arrayContaining(['$identify', 'browser identified step', '$set']),
      );
      expect(onePerson(events, [deviceId, user])).toBe(true);
      expect(events[0]!.person).toMatchObject({ is_identified: true });
      expect(events[0]!.person!.distinct_ids).toEqual(expect.arrayContaining([deviceId, user]));
    });

    it('sets the person properties from identify() and keeps its $set_once against a later one', () => {
      // Assess
      const person = [...stored.values()][0]!.person;
      expect(person?.properties).toMatchObject({
        email: 'bea@example.com',
        name: 'Bea',
        first_seen: '2024-05-01',
        plan: 'team',
      });
    });
  });
});
