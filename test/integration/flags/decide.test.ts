import { randomUUID } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { evaluateFlag } from '../../../functions/shared/domain/flags';
import type { FeatureFlag } from '../../../functions/shared/domain/flags';
import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';
import type { FlagBody } from './helpers';
import { createFlag, postFlags, secondOrganization, seedGroupType } from './helpers';

/**
 * `/decide/`, `/flags/`, remote config and local evaluation definitions through the local server,
 * as the SDKs call them. Flags are created before any evaluation: a project's definitions are cached
 * for 5 seconds once read.
 */
describe('flag evaluation endpoints', () => {
  let server: LocalServer;
  let token: string;
  /** A second organization's project holding only the reference flags, for exact response shapes. */
  let shapes: { projectId: number; personalApiKey: string; projectApiKey: string };
  let beta: FlagBody;
  let multivariate: FlagBody;
  let continuity: FlagBody;
  let soonDeleted: FlagBody;

  beforeAll(async () => {
    server = await sharedLocalServer('decide');
    token = server.credentials.projectApiKey;
    shapes = await secondOrganization(server);
    const other = privateApi(server, shapes.personalApiKey);
    const inShapes = (body: Record<string, unknown>) =>
      other.post<FlagBody>(`/api/projects/${shapes.projectId}/feature_flags/`, body).then((r) => r.body);
    beta = await inShapes({
      key: 'beta-feature',
      name: 'Beta',
      filters: { groups: [{ properties: [], rollout_percentage: 50 }], payloads: { true: '{"a": 1}' } },
    });
    multivariate = await inShapes({
      key: 'multivariate-flag',
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'first-variant', rollout_percentage: 50 },
            { key: 'second-variant', rollout_percentage: 25 },
            { key: 'third-variant', rollout_percentage: 25 },
          ],
        },
        payloads: { 'first-variant': { color: 'blue' } },
      },
    });
    await inShapes({ key: 'disabled-flag', active: false, filters: { groups: [{}] } });

    await seedGroupType(server, 0, 'company');
    await createFlag(server, {
      key: 'group-flag',
      filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 50 }] },
    });
    await createFlag(server, {
      key: 'pro-flag',
      filters: {
        groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }] }],
      },
    });
    continuity = await createFlag(server, {
      key: 'continuity-flag',
      ensure_experience_continuity: true,
      filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
    });
    soonDeleted = await createFlag(server, { key: 'soon-deleted', filters: { groups: [{}] } });
    await createFlag(server, {
      key: 'remote-settings',
      is_remote_configuration: true,
      filters: { groups: [{}], payloads: { true: { theme: 'dark' } } },
    });
  });

  afterAll(async () => {
    await server.stop();
  });

  const shapesToken = () => shapes.projectApiKey;

  describe('response shapes (the hash vectors of PostHog’s flag_matching.py)', () => {
    it('decide v1 (the default) lists the keys of enabled flags, with decide’s config', async () => {
      // Act
      const response = await postFlags(server, '/decide/', {
        api_key: shapesToken(),
        distinct_id: 'example_id',
      });

      // Assess
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        config: { enable_collect_everything: true },
        editorParams: {},
        toolbarParams: {},
        isAuthenticated: false,
        supportedCompression: ['gzip', 'gzip-js', 'lz64'],
        sessionRecording: false,
        autocapture_opt_out: false,
        siteApps: [],
        featureFlags: ['beta-feature', 'multivariate-flag'],
      });
    });

    it('decide v2 maps enabled flags to true or their variant', async () => {
      // Act
      const response = await postFlags(server, '/decide/?v=2', {
        token: shapesToken(),
        distinct_id: 'example_id',
      });

      // Assess
      expect(response.body).toMatchObject({
        featureFlags: { 'beta-feature': true, 'multivariate-flag': 'first-variant' },
      });
      expect(Object.keys(response.body).sort()).toEqual(
        [
          'autocapture_opt_out',
          'config',
          'editorParams',
          'featureFlags',
          'isAuthenticated',
          'sessionRecording',
          'siteApps',
          'supportedCompression',
          'toolbarParams',
        ].sort(),
      );
    });

    it('decide v2 leaves disabled flags out; v3 lists every flag with payloads and errors', async () => {
      // Act
      const v2 = await postFlags(server, '/decide/?v=2', { token: shapesToken(), distinct_id: 'another_id' });
      const v3 = await postFlags(server, '/decide/?v=3', { token: shapesToken(), distinct_id: 'another_id' });

      // Assess
      expect(v2.body.featureFlags).toEqual({ 'multivariate-flag': 'first-variant' });
      expect(v3.body).toMatchObject({
        featureFlags: { 'beta-feature': false, 'multivariate-flag': 'first-variant' },
        errorsWhileComputingFlags: false,
        featureFlagPayloads: { 'multivariate-flag': '{"color":"blue"}' },
      });
    });

    it('reads an unparsable version as 2, as Django does for posthog-js 1.19.0', async () => {
      // Act
      const response = await postFlags(server, '/decide/?v=2&v=1.19.0', {
        token: shapesToken(),
        distinct_id: 'example_id',
      });

      // Assess
      expect(response.body.featureFlags).toEqual({
        'beta-feature': true,
        'multivariate-flag': 'first-variant',
      });
    });

    it('decide v4 and /flags?v=2 give per-flag details with metadata and a JSON-text payload', async () => {
      // Prepare
      const expectedFlags = {
        'beta-feature': {
          key: 'beta-feature',
          enabled: true,
          variant: null,
          reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
          metadata: { id: beta.id, version: 1, description: 'Beta', payload: '{"a": 1}' },
        },
        'multivariate-flag': {
          key: 'multivariate-flag',
          enabled: true,
          variant: 'first-variant',
          reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
          metadata: { id: multivariate.id, version: 1, description: '', payload: '{"color":"blue"}' },
        },
      };

      // Act
      const v4 = await postFlags(server, '/decide/?v=4', { token: shapesToken(), distinct_id: 'example_id' });
      const flags = await postFlags(server, '/flags/?v=2', {
        token: shapesToken(),
        distinct_id: 'example_id',
      });

      // Assess
      expect(v4.body).toMatchObject({ flags: expectedFlags, errorsWhileComputingFlags: false, siteApps: [] });
      expect(flags.body).toEqual({
        flags: expectedFlags,
        errorsWhileComputingFlags: false,
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        evaluatedAt: expect.any(Number),
      });
    });

    it('/flags without a version gives FlagsV1: every flag, payloads, request id', async () => {
      // Act
      const response = await postFlags(server, '/flags', { token: shapesToken(), distinct_id: 'other_id' });

      // Assess
      expect(response.body).toEqual({
        featureFlags: { 'beta-feature': true, 'multivariate-flag': 'third-variant' },
        featureFlagPayloads: { 'beta-feature': '{"a": 1}' },
        errorsWhileComputingFlags: false,
        requestId: expect.any(String),
        evaluatedAt: expect.any(Number),
      });
    });

    it('reports why a flag is off', async () => {
      // Act
      const response = await postFlags(server, '/flags/?v=2', {
        token: shapesToken(),
        distinct_id: 'another_id',
      });

      // Assess
      expect(response.body.flags).toMatchObject({
        'beta-feature': {
          enabled: false,
          variant: null,
          reason: { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' },
          metadata: { payload: null },
        },
      });
    });
  });

  describe('request encodings and methods', () => {
    it('reads posthog-js 1.200’s base64 form post to /decide/?v=3', async () => {
      // Prepare
      const data = Buffer.from(JSON.stringify({ token: shapesToken(), distinct_id: 'example_id' })).toString(
        'base64',
      );

      // Act
      const response = await fetch(
        `${server.credentials.apiUrl}/decide/?v=3&ip=1&_=1&ver=1.200.0&compression=base64`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `data=${encodeURIComponent(data)}`,
        },
      );

      // Assess
      expect(response.status).toBe(200);
      expect(((await response.json()) as { featureFlags: unknown }).featureFlags).toMatchObject({
        'beta-feature': true,
      });
    });

    it('reads a gzip body sent as text/plain, as posthog-js 1.449 sends /flags', async () => {
      // Act
      const response = await fetch(`${server.credentials.apiUrl}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: gzipSync(JSON.stringify({ token: shapesToken(), distinct_id: 'example_id' })),
      });

      // Assess
      expect(response.status).toBe(200);
      expect(Object.keys(((await response.json()) as { flags: object }).flags)).toEqual([
        'beta-feature',
        'multivariate-flag',
      ]);
    });

    it('answers GET with decide’s config and no flags, and preflights with CORS', async () => {
      // Act
      const get = await fetch(`${server.credentials.apiUrl}/decide/`);
      const preflight = await fetch(`${server.credentials.apiUrl}/flags/`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:3000', 'access-control-request-headers': 'content-type' },
      });

      // Assess
      expect(get.status).toBe(200);
      expect(await get.json()).toMatchObject({
        featureFlags: [],
        supportedCompression: ['gzip', 'gzip-js', 'lz64'],
      });
      expect(preflight.status).toBe(200);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('content-type');
    });

    it('evaluates only the keys asked for (posthog-node’s single-flag calls)', async () => {
      // Act
      const response = await postFlags(server, '/flags/?v=2', {
        token: shapesToken(),
        distinct_id: 'example_id',
        flag_keys_to_evaluate: ['multivariate-flag'],
      });

      // Assess
      expect(Object.keys(response.body.flags as object)).toEqual(['multivariate-flag']);
    });

    it('evaluates nothing with disable_flags, and needs no distinct id then', async () => {
      // Act
      const response = await postFlags(server, '/decide/?v=3', { token: shapesToken(), disable_flags: true });

      // Assess
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ featureFlags: {}, featureFlagPayloads: {} });
    });
  });

  describe('errors (as PostHog’s decide.py answers them)', () => {
    it.each([
      [
        'no token',
        { distinct_id: 'x' },
        401,
        {
          type: 'authentication_error',
          code: 'no_api_key',
          detail:
            'No project API key provided. You can find your project API key in PostHog project settings.',
        },
      ],
      [
        'an unknown token',
        { token: 'phc_nope', distinct_id: 'x' },
        401,
        {
          type: 'authentication_error',
          code: 'invalid_api_key',
          detail: 'Project API key invalid. You can find your project API key in PostHog project settings.',
        },
      ],
      [
        'an unknown personal key with a project id',
        { token: 'phx_nope', project_id: 1, distinct_id: 'x' },
        401,
        {
          type: 'authentication_error',
          code: 'invalid_personal_api_key',
          detail: 'Invalid Personal API key.',
        },
      ],
      [
        'a project id that is no integer',
        { token: 'phx_nope', project_id: 'abc', distinct_id: 'x' },
        400,
        { type: 'validation_error', code: 'invalid_project', attr: 'project_id' },
      ],
      [
        'no distinct id',
        { token: 'TOKEN' },
        400,
        { type: 'validation_error', code: 'missing_distinct_id', detail: 'Decide requires a distinct_id.' },
      ],
    ])('answers %s with PostHog’s error', async (_case, body, status, error) => {
      // Act
      const response = await postFlags(server, '/decide/?v=3', JSON.stringify(body).replace('TOKEN', token), {
        origin: 'https://app.example.com',
      });

      // Assess
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject(error);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    });

    it('answers an undecodable body with 400 malformed_data', async () => {
      // Act
      const response = await postFlags(server, '/flags/?v=2', '{"token": ');

      // Assess
      expect(response).toMatchObject({
        status: 400,
        body: { type: 'validation_error', code: 'malformed_data' },
      });
      expect(String(response.body.detail)).toMatch(/^Malformed request data: /);
    });

    it('accepts a personal API key with the project id instead of a project token', async () => {
      // Act
      const response = await postFlags(server, '/decide/?v=2', {
        api_key: shapes.personalApiKey,
        project_id: shapes.projectId,
        distinct_id: 'example_id',
      });

      // Assess
      expect(response.status).toBe(200);
      expect(response.body.featureFlags).toEqual({
        'beta-feature': true,
        'multivariate-flag': 'first-variant',
      });
    });
  });

  describe('evaluation inputs', () => {
    it('evaluates group flags on the group key of the request, and off without the group', async () => {
      // Act
      const acme = await postFlags(server, '/flags/?v=2', {
        token,
        distinct_id: 'u1',
        groups: { company: 'acme' },
      });
      const posthog = await postFlags(server, '/flags/?v=2', {
        token,
        distinct_id: 'u1',
        groups: { company: 'posthog' },
      });
      const none = await postFlags(server, '/flags/?v=2', { token, distinct_id: 'u1' });

      // Assess: group-flag.acme hashes to 0.063, group-flag.posthog to 0.628 (50 % rollout)
      expect(acme.body.flags).toMatchObject({ 'group-flag': { enabled: true } });
      expect(posthog.body.flags).toMatchObject({ 'group-flag': { enabled: false } });
      expect(none.body.flags).toMatchObject({
        'group-flag': { enabled: false, reason: { code: 'no_group_type' } },
      });
    });

    it('matches person properties sent with the request', async () => {
      // Act
      const pro = await postFlags(server, '/decide/?v=2', {
        token,
        distinct_id: `sent-${randomUUID()}`,
        person_properties: { plan: 'pro' },
      });
      const free = await postFlags(server, '/decide/?v=2', {
        token,
        distinct_id: `sent-${randomUUID()}`,
        person_properties: { plan: 'free' },
      });

      // Assess
      expect(pro.body.featureFlags).toHaveProperty('pro-flag', true);
      expect(free.body.featureFlags).not.toHaveProperty('pro-flag');
    });

    it('matches the stored person’s properties, which the request’s override', async () => {
      // Prepare: the person gets plan=pro through ingestion
      const distinctId = `stored-${randomUUID()}`;
      await postJson(server, '/batch/', {
        api_key: token,
        batch: [
          {
            event: '$identify',
            uuid: randomUUID(),
            $set: { plan: 'pro' },
            properties: { distinct_id: distinctId },
          },
        ],
      });

      // Act
      const stored = await eventually('pro-flag to be true for the stored person', async () => {
        const response = await postFlags(server, '/decide/?v=2', { token, distinct_id: distinctId });
        return (response.body.featureFlags as Record<string, unknown>)['pro-flag'] === true
          ? response
          : undefined;
      });
      const overridden = await postFlags(server, '/decide/?v=2', {
        token,
        distinct_id: distinctId,
        person_properties: { plan: 'free' },
      });

      // Assess
      expect(stored.status).toBe(200);
      expect(overridden.body.featureFlags).not.toHaveProperty('pro-flag');
    });

    it('follows a person merged after an earlier call: repeat calls never keep the old person', async () => {
      // Prepare: two stored persons, a free one and a pro one, each asked about once (remembered)
      const [free, pro] = [`free-${randomUUID()}`, `pro-${randomUUID()}`];
      const identify = (distinctId: string, plan: string) => ({
        event: '$identify',
        uuid: randomUUID(),
        $set: { plan },
        properties: { distinct_id: distinctId },
      });
      await postJson(server, '/batch/', {
        api_key: token,
        batch: [identify(free, 'free'), identify(pro, 'pro')],
      });
      const proFlag = async (distinctId: string) =>
        (
          (await postFlags(server, '/decide/?v=2', { token, distinct_id: distinctId })).body
            .featureFlags as Record<string, unknown>
        )['pro-flag'] === true;
      await eventually('both persons to be stored', async () => {
        const { body } = await privateApi(server).get<{ results: unknown[] }>(
          `/api/projects/${server.credentials.projectId}/persons/?distinct_id=${free}`,
        );
        return body.results.length === 1 && (await proFlag(pro)) ? true : undefined;
      });
      expect(await proFlag(free)).toBe(false);

      // Act: the free person is merged into the pro one (its item forwards, its distinct id moves)
      await postJson(server, '/batch/', {
        api_key: token,
        batch: [
          {
            event: '$merge_dangerously',
            uuid: randomUUID(),
            properties: { distinct_id: pro, alias: free },
          },
        ],
      });

      // Assess: the free distinct id now answers with the survivor, and keeps doing so
      await eventually('the merged distinct id to get the survivor’s flags', async () =>
        (await proFlag(free)) ? true : undefined,
      );
      expect(await proFlag(free)).toBe(true);
      expect(await proFlag(pro)).toBe(true);
    });

    it('keeps a continuity flag’s anonymous bucket after identify, and from then on', async () => {
      // Prepare: an anonymous id and a user id that the flag buckets differently
      const flag = continuity as unknown as FeatureFlag;
      const valueFor = (id: string) => evaluateFlag(flag, { distinctId: id }).enabled;
      const anon = `anon-${randomUUID()}`;
      let user = `user-${randomUUID()}`;
      while (valueFor(user) === valueFor(anon)) user = `user-${randomUUID()}`;

      // Act
      const before = await postFlags(server, '/decide/?v=3', { token, distinct_id: anon });
      const identified = await postFlags(server, '/decide/?v=3', {
        token,
        distinct_id: user,
        $anon_distinct_id: anon,
      });
      const later = await postFlags(server, '/decide/?v=3', { token, distinct_id: user });

      // Assess
      const value = (response: { body: Record<string, unknown> }) =>
        (response.body.featureFlags as Record<string, unknown>)['continuity-flag'];
      expect(value(before)).toBe(valueFor(anon));
      expect(value(identified)).toBe(valueFor(anon));
      expect(value(later)).toBe(valueFor(anon));
    });

    it('stops evaluating a soft-deleted flag within the definitions cache window (5 s)', async () => {
      // Prepare
      const shown = await postFlags(server, '/decide/?v=3', { token, distinct_id: 'anyone' });
      expect(shown.body.featureFlags).toHaveProperty('soon-deleted', true);

      // Act
      await privateApi(server).patch(
        `/api/projects/${server.credentials.projectId}/feature_flags/${soonDeleted.id}/`,
        {
          deleted: true,
        },
      );

      // Assess
      await eventually(
        'the deleted flag to leave decide',
        async () => {
          const response = await postFlags(server, '/decide/?v=3', { token, distinct_id: 'anyone' });
          return 'soon-deleted' in (response.body.featureFlags as object) ? undefined : true;
        },
        8_000,
      );
    });
  });

  describe('remote config (posthog-js)', () => {
    it('serves /array/<token>/config with gzip-js, autocapture on and CORS', async () => {
      // Act
      const response = await fetch(`${server.credentials.apiUrl}/array/${token}/config`, {
        headers: { origin: 'http://localhost:5173' },
      });

      // Assess
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(await response.json()).toEqual({
        token,
        supportedCompression: ['gzip', 'gzip-js'],
        hasFeatureFlags: true,
        captureDeadClicks: false,
        capturePerformance: false,
        autocapture_opt_out: false,
        autocaptureExceptions: false,
        sessionRecording: false,
        heatmaps: false,
        surveys: false,
        siteApps: [],
      });
    });

    it('serves config.js setting window._POSTHOG_REMOTE_CONFIG[token]', async () => {
      // Act
      const response = await fetch(`${server.credentials.apiUrl}/array/${token}/config.js`);
      const script = await response.text();
      const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: { token: string } }> } = {};
      runInNewContext(script, { window });

      // Assess
      expect(response.headers.get('content-type')).toBe('application/javascript');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(window._POSTHOG_REMOTE_CONFIG?.[token]?.config.token).toBe(token);
    });

    it('answers 404 for a token no project has', async () => {
      // Act
      const response = await fetch(`${server.credentials.apiUrl}/array/phc_unknown/config`);

      // Assess
      expect(response.status).toBe(404);
    });
  });

  describe('local evaluation definitions', () => {
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.credentials.apiUrl}${path}`, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}`, ...headers },
      });

    it('serves every flag not deleted, the group types and cohorts, with an ETag and 304', async () => {
      // Act
      const first = await get(`/flags/definitions?token=${token}&send_cohorts`);
      const body = (await first.json()) as {
        flags: { key: string }[];
        group_type_mapping: object;
        cohorts: object;
      };
      const etag = first.headers.get('etag')!;
      const again = await get(`/flags/definitions?token=${token}&send_cohorts`, { 'if-none-match': etag });

      // Assess
      expect(first.status).toBe(200);
      expect(body.flags.map((flag) => flag.key)).toEqual(
        expect.arrayContaining(['group-flag', 'pro-flag', 'continuity-flag', 'remote-settings']),
      );
      expect(body.group_type_mapping).toEqual({ 0: 'company' });
      expect(body.cohorts).toEqual({});
      expect(etag).toMatch(/^W\/"[0-9a-f]+"$/);
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    });

    it('serves the inactive flags too (the SDK answers false for them)', async () => {
      // Act
      const response = await fetch(`${server.credentials.apiUrl}/flags/definitions?token=${shapesToken()}`, {
        headers: { authorization: `Bearer ${shapes.personalApiKey}` },
      });

      // Assess
      const body = (await response.json()) as { flags: { key: string; active: boolean }[] };
      expect(body.flags.map((flag) => [flag.key, flag.active])).toEqual([
        ['beta-feature', true],
        ['multivariate-flag', true],
        ['disabled-flag', false],
      ]);
    });

    it('serves the same at posthog-node 4’s /api/feature_flag/local_evaluation', async () => {
      // Act
      const legacy = await get(`/api/feature_flag/local_evaluation?token=${token}&send_cohorts`);
      const current = await get(`/flags/definitions?token=${token}&send_cohorts`);

      // Assess
      expect(legacy.status).toBe(200);
      expect(await legacy.json()).toEqual(await current.json());
    });

    it('needs a personal API key of a member of the project', async () => {
      // Act
      const none = await fetch(`${server.credentials.apiUrl}/flags/definitions?token=${token}`);
      const bad = await get(`/flags/definitions?token=${token}`, { authorization: 'Bearer phx_nope' });
      const otherOrg = await get(`/flags/definitions?token=${shapesToken()}`);

      // Assess
      expect(none.status).toBe(401);
      expect(bad.status).toBe(401);
      expect(((await bad.json()) as { code: string }).code).toBe('invalid_personal_api_key');
      expect(otherOrg.status).toBe(403);
    });
  });

  describe('remote config payloads (getRemoteConfigPayload)', () => {
    it('serves a remote configuration flag’s payload by key, as posthog-node 5 asks', async () => {
      // Act
      const response = await privateApi(server).get(
        `/api/projects/@current/feature_flags/remote-settings/remote_config?token=${token}`,
      );

      // Assess
      expect(response).toMatchObject({ status: 200, body: '{"theme":"dark"}' });
    });

    it('answers 404 for a flag that is not a remote configuration', async () => {
      // Act
      const response = await privateApi(server).get(
        `/api/projects/${server.credentials.projectId}/feature_flags/pro-flag/remote_config/`,
      );

      // Assess
      expect(response.status).toBe(404);
    });
  });
});
