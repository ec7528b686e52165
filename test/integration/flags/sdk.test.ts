import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../sdk/browser';
import { PostHog } from 'posthog-node';
import type { FeatureFlag, JsonValue } from '../../../functions/shared/domain/flags';
import { evaluateFlags } from '../../../functions/shared/domain/flags';
import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { sharedLocalServer } from '../../helpers/local-server';
import type { FlagBody } from './helpers';
import { createFlag, seedGroupType } from './helpers';

/**
 * The real SDKs against Flock: for a set of flags and users, posthog-node remote evaluation (`/flags`),
 * posthog-node local evaluation (`/flags/definitions` with a personal API key) and posthog-js in
 * headless Chromium (remote config, gzip `/flags`, CORS) all get the values Flock's own evaluation
 * engine computes from the same definitions.
 */

interface User {
  readonly distinctId: string;
  readonly personProperties: Record<string, string>;
  readonly company: string;
}

type Values = Record<string, string | boolean | undefined>;
type Payloads = Record<string, unknown>;

const users: User[] = Array.from({ length: 12 }, (_, i) => ({
  distinctId: `sdk-user-${i}`,
  personProperties: {
    email: i % 2 === 0 ? `user${i}@example.com` : `user${i}@other.org`,
    plan: i % 3 === 0 ? 'pro' : 'free',
  },
  company: `company-${i % 5}`,
}));

/** Payloads as the SDKs return them: stored JSON text, parsed. */
const parsed = (payload: JsonValue | null | undefined): unknown => {
  if (typeof payload !== 'string') return payload ?? undefined;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return payload;
  }
};

const root = resolve(__dirname, '../../..');
const step = 30_000;

describe('posthog-node and posthog-js get the flag values Flock computes', () => {
  let server: LocalServer;
  let definitions: FeatureFlag[];
  let activeKeys: string[];
  let inactiveKey: string;
  let expected: Map<string, { values: Values; payloads: Payloads }>;

  beforeAll(async () => {
    server = await sharedLocalServer('sdk');
    await seedGroupType(server, 0, 'company');
    const flags: FlagBody[] = [
      await createFlag(server, {
        key: 'sdk-rollout',
        filters: {
          groups: [{ properties: [], rollout_percentage: 40 }],
          payloads: { true: { enabled: 'yes' } },
        },
      }),
      await createFlag(server, {
        key: 'sdk-variants',
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: 'control', rollout_percentage: 34 },
              { key: 'test', rollout_percentage: 33 },
              { key: 'other', rollout_percentage: 33 },
            ],
          },
          payloads: { control: { color: 'grey' }, test: { color: 'blue' }, other: '"plain"' },
        },
      }),
      await createFlag(server, {
        key: 'sdk-person',
        filters: {
          groups: [
            { properties: [{ key: 'email', value: '@example.com', operator: 'icontains', type: 'person' }] },
            {
              properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }],
              rollout_percentage: 50,
            },
          ],
        },
      }),
      await createFlag(server, {
        key: 'sdk-override',
        filters: {
          groups: [
            {
              properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }],
              variant: 'beta',
            },
            { properties: [], rollout_percentage: 70 },
          ],
          multivariate: {
            variants: [
              { key: 'alpha', rollout_percentage: 50 },
              { key: 'beta', rollout_percentage: 50 },
            ],
          },
        },
      }),
      await createFlag(server, {
        key: 'sdk-company',
        filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 60 }] },
      }),
      await createFlag(server, { key: 'sdk-off', active: false, filters: { groups: [{}] } }),
    ];
    definitions = flags.map((flag) => flag as unknown as FeatureFlag);
    activeKeys = flags.filter((flag) => flag.active).map((flag) => flag.key);
    inactiveKey = 'sdk-off';

    // Flock's own evaluation, straight from the engine, of the definitions the API stored.
    expected = new Map(
      users.map((user) => {
        const evaluation = evaluateFlags(definitions, {
          distinctId: user.distinctId,
          personProperties: user.personProperties,
          groups: { company: user.company },
          groupTypeMapping: { 0: 'company' },
        });
        const values: Values = {};
        const payloads: Payloads = {};
        for (const key of activeKeys) {
          const result = evaluation.flags[key]!;
          values[key] = result.variant ?? result.enabled;
          if (result.enabled && result.payload !== null) payloads[key] = parsed(result.payload);
        }
        return [user.distinctId, { values, payloads }];
      }),
    );
  }, step);

  afterAll(async () => {
    await server.stop();
  });

  it('the users cover enabled and disabled values of every flag', () => {
    // Assess: otherwise the comparisons below would prove little
    for (const key of activeKeys) {
      const values = new Set(users.map((user) => String(expected.get(user.distinctId)!.values[key])));
      expect({ key, distinct: values.size > 1 }).toEqual({ key, distinct: true });
    }
  });

  it(
    'posthog-node remote evaluation (POST /flags/?v=2) gets the same values and payloads',
    async () => {
      // Prepare
      const client = new PostHog(server.credentials.projectApiKey, {
        host: server.credentials.apiUrl,
        flushAt: 1,
      });
      try {
        for (const user of users) {
          // Act
          const result = await client.getAllFlagsAndPayloads(user.distinctId, {
            personProperties: user.personProperties,
            groups: { company: user.company },
          });

          // Assess
          const want = expected.get(user.distinctId)!;
          expect({ user: user.distinctId, values: result.featureFlags }).toEqual({
            user: user.distinctId,
            values: want.values,
          });
          expect(result.featureFlagPayloads).toEqual(want.payloads);
          expect(result.featureFlags).not.toHaveProperty(inactiveKey);
        }
      } finally {
        await client.shutdown();
      }
    },
    step,
  );

  it(
    'posthog-node local evaluation (GET /flags/definitions, personal API key) gets the same values',
    async () => {
      // Prepare
      const client = new PostHog(server.credentials.projectApiKey, {
        host: server.credentials.apiUrl,
        personalApiKey: server.credentials.personalApiKey,
        flushAt: 1,
      });
      try {
        expect(await client.waitForLocalEvaluationReady(10_000)).toBe(true);
        for (const user of users) {
          // Act
          const result = await client.getAllFlagsAndPayloads(user.distinctId, {
            personProperties: user.personProperties,
            groups: { company: user.company },
            onlyEvaluateLocally: true,
          });

          // Assess
          const want = expected.get(user.distinctId)!;
          expect({ user: user.distinctId, values: result.featureFlags }).toEqual({
            user: user.distinctId,
            values: { ...want.values, [inactiveKey]: false },
          });
          expect(result.featureFlagPayloads).toEqual(want.payloads);
        }
      } finally {
        await client.shutdown();
      }
    },
    step,
  );

  describe('posthog-js in headless Chromium', () => {
    let browser: Browser;
    let pages: Server;
    let pageUrl: string;

    beforeAll(async () => {
      const script = readFileSync(join(root, 'node_modules/posthog-js/dist/array.full.js'));
      pages = createServer((request, response) => {
        if (request.url?.startsWith('/posthog.js')) {
          response.writeHead(200, { 'content-type': 'application/javascript' }).end(script);
          return;
        }
        response.writeHead(200, { 'content-type': 'text/html' }).end(page);
      });
      await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
      // A different port than the API's: every call from the page is cross-origin, as in production.
      pageUrl = `http://localhost:${(pages.address() as AddressInfo).port}/`;
      browser = await launchChromium(step);
    }, step);

    afterAll(async () => {
      await browser?.close();
      await new Promise((done) => pages?.close(done));
    });

    it(
      'gets the same values and payloads, with gzip and autocapture on from remote config',
      async () => {
        for (const user of users) {
          // Prepare
          const context = await browser.newContext();
          const tab = await context.newPage();
          tab.setDefaultTimeout(step);
          const settings = {
            token: server.credentials.projectApiKey,
            apiHost: server.credentials.apiUrl,
            distinctId: user.distinctId,
            personProperties: user.personProperties,
            company: user.company,
            keys: [...activeKeys, inactiveKey],
          };

          // Act
          await tab.goto(`${pageUrl}?settings=${encodeURIComponent(JSON.stringify(settings))}`);
          const result = await tab.evaluate<{
            values: Values;
            payloads: Payloads;
            compression: string | undefined;
            autocapture: boolean;
          }>('window.flagsLoaded');
          await context.close();

          // Assess
          const want = expected.get(user.distinctId)!;
          expect({ user: user.distinctId, values: result.values }).toEqual({
            user: user.distinctId,
            values: { ...want.values, [inactiveKey]: undefined },
          });
          expect(result.payloads).toEqual(want.payloads);
          expect(result.compression).toBe('gzip-js');
          expect(result.autocapture).toBe(true);
        }
      },
      users.length * 10_000,
    );
  });

  it('the flags the SDKs saw are the ones stored (sanity check of the definitions used)', async () => {
    // Act
    const listed = await privateApi(server).get<{ results: FlagBody[] }>(
      `/api/projects/${server.credentials.projectId}/feature_flags/`,
    );

    // Assess
    expect(listed.body.results.map((flag) => flag.key).sort()).toEqual([...activeKeys, inactiveKey].sort());
  });
});

/**
 * The test page: posthog-js from node_modules, set up for one user before its first `/flags`
 * request (which waits for remote config), then the values it read once flags arrived.
 */
const page = `<!doctype html>
<html>
  <head><script src="/posthog.js"></script></head>
  <body>
    <script>
      const settings = JSON.parse(new URLSearchParams(location.search).get('settings'));
      window.flagsLoaded = new Promise((resolve) => {
        posthog.init(settings.token, {
          api_host: settings.apiHost,
          persistence: 'memory',
          opt_out_useragent_filter: true,
          capture_pageview: false,
          bootstrap: { distinctID: settings.distinctId, isIdentifiedID: true },
        });
        posthog.setPersonPropertiesForFlags(settings.personProperties, false);
        posthog.group('company', settings.company);
        // Autocapture starts once its extension has seen the remote config, which may come a moment
        // after the flags: give it up to 5 s.
        const autocaptureOn = async () => {
          for (let waited = 0; waited < 5000; waited += 50) {
            if (posthog.autocapture && posthog.autocapture.isEnabled) return true;
            await new Promise((done) => setTimeout(done, 50));
          }
          return false;
        };
        posthog.onFeatureFlags(() => {
          const values = {};
          const payloads = {};
          for (const key of settings.keys) {
            values[key] = posthog.getFeatureFlag(key, { send_event: false });
            const payload = posthog.getFeatureFlagPayload(key);
            if (payload !== undefined && payload !== null) payloads[key] = payload;
          }
          autocaptureOn().then((autocapture) =>
            resolve({ values, payloads, compression: posthog.compression, autocapture }),
          );
        });
      });
    </script>
  </body>
</html>`;
