import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { sharedLocalServer } from '../../helpers/local-server';
import type { FlagBody } from './helpers';
import { createFlag, secondOrganization } from './helpers';

/** The feature flags API (PostHog's FeatureFlagViewSet, `posthog/api/feature_flag.py`) through the local server. */
describe('/api/projects/:project_id/feature_flags/', () => {
  let server: LocalServer;
  let flagsPath: string;

  beforeAll(async () => {
    server = await sharedLocalServer('api');
    flagsPath = `/api/projects/${server.credentials.projectId}/feature_flags/`;
  });

  afterAll(async () => {
    await server.stop();
  });

  const api = () => privateApi(server);

  describe('create', () => {
    it('answers 201 with PostHog’s shape, an integer id, version 1 and the caller as created_by', async () => {
      // Act
      const response = await api().post<FlagBody>(flagsPath, {
        key: 'create-shape',
        name: 'Shown to half',
        filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
      });

      // Assess
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(Number),
        name: 'Shown to half',
        key: 'create-shape',
        filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
        deleted: false,
        active: true,
        created_by: {
          id: expect.any(Number),
          uuid: expect.any(String),
          distinct_id: expect.any(String),
          first_name: expect.any(String),
          email: expect.any(String),
        },
        created_at: expect.any(String),
        updated_at: expect.any(String),
        version: 1,
        ensure_experience_continuity: false,
        is_simple_flag: true,
        rollout_percentage: 50,
        is_remote_configuration: false,
        experiment_set: [],
        tags: [],
      });
    });

    it('stores object payloads as JSON text and reports a property-targeted flag as not simple', async () => {
      // Act
      const flag = await createFlag(server, {
        key: 'create-payload',
        filters: {
          groups: [{ properties: [{ key: 'email', value: 'x', operator: 'icontains', type: 'person' }] }],
          payloads: { true: { color: 'blue' } },
        },
      });

      // Assess
      expect(flag.filters.payloads).toEqual({ true: '{"color":"blue"}' });
      expect(flag).toMatchObject({ is_simple_flag: false, rollout_percentage: null });
    });

    it.each([
      [
        'a key another live flag has',
        { key: 'create-shape', filters: { groups: [{ rollout_percentage: 10 }] } },
        { code: 'unique', detail: 'There is already a feature flag with this key.', attr: 'key' },
      ],
      [
        'a key with spaces',
        { key: 'has space', filters: { groups: [{}] } },
        {
          code: 'invalid_key',
          detail: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
          attr: 'key',
        },
      ],
      ['no key', { filters: { groups: [{}] } }, { code: 'required', attr: 'key' }],
      [
        'variants not summing to 100',
        {
          key: 'bad-variants',
          filters: {
            groups: [{}],
            multivariate: {
              variants: [
                { key: 'a', rollout_percentage: 50 },
                { key: 'b', rollout_percentage: 40 },
              ],
            },
          },
        },
        {
          code: 'invalid_input',
          detail: 'Invalid variant definitions: Variant rollout percentages must sum to 100.',
          attr: 'filters',
        },
      ],
      [
        'a group property on a person flag',
        {
          key: 'bad-person',
          filters: {
            groups: [{ properties: [{ key: 'name', value: 'x', type: 'group', group_type_index: 0 }] }],
          },
        },
        {
          code: 'invalid_input',
          detail: 'Filters are not valid (can only use person and cohort properties)',
          attr: 'filters',
        },
      ],
      [
        'a person property on a group flag',
        {
          key: 'bad-group',
          filters: {
            aggregation_group_type_index: 0,
            groups: [{ properties: [{ key: 'email', value: 'x' }] }],
          },
        },
        {
          code: 'invalid_input',
          detail: 'Filters are not valid (can only use group properties)',
          attr: 'filters',
        },
      ],
      [
        'a variant override that is no variant',
        {
          key: 'bad-override',
          filters: {
            groups: [{ variant: 'nope' }],
            multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] },
          },
        },
        {
          code: 'invalid_input',
          detail: 'Filters are not valid (variant override does not exist)',
          attr: 'filters',
        },
      ],
      [
        'no condition set',
        { key: 'no-groups', filters: { groups: [] } },
        {
          code: 'invalid_input',
          detail: 'Feature flags must have at least one condition set (group).',
          attr: 'filters',
        },
      ],
      [
        'a payload key other than "true" on a boolean flag',
        { key: 'bad-payload', filters: { groups: [{}], payloads: { control: '1' } } },
        { code: 'invalid_input', detail: "Payload keys must be 'true' for boolean flags", attr: 'filters' },
      ],
    ])('refuses %s with 400 and PostHog’s error', async (_case, body, error) => {
      // Act
      const response = await api().post(flagsPath, body);

      // Assess
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ type: 'validation_error', ...error });
    });

    it('refuses a request without a personal API key with 401', async () => {
      // Act
      const response = await privateApi(server, null).post(flagsPath, { key: 'anonymous' });

      // Assess
      expect(response).toMatchObject({ status: 401, body: { code: 'not_authenticated' } });
    });
  });

  describe('list and retrieve', () => {
    it('lists flags not deleted, newest first, in the paginated envelope', async () => {
      // Prepare
      const older = await createFlag(server, { key: 'list-older', filters: { groups: [{}] } });
      const newer = await createFlag(server, { key: 'list-newer', filters: { groups: [{}] } });
      const gone = await createFlag(server, { key: 'list-gone', filters: { groups: [{}] } });
      await api().patch(`${flagsPath}${gone.id}/`, { deleted: true });

      // Act
      const response = await api().get<{ count: number; next: null; previous: null; results: FlagBody[] }>(
        flagsPath,
      );

      // Assess
      expect(response.status).toBe(200);
      const keys = response.body.results.map((flag) => flag.key);
      expect(keys.indexOf(newer.key)).toBeLessThan(keys.indexOf(older.key));
      expect(keys).not.toContain(gone.key);
      expect(response.body).toMatchObject({ count: keys.length, next: null, previous: null });
    });

    it('pages with limit and offset', async () => {
      // Act
      const response = await api().get<{ count: number; next: string | null; results: FlagBody[] }>(
        `${flagsPath}?limit=1`,
      );

      // Assess
      expect(response.body.results).toHaveLength(1);
      expect(response.body.next).toContain('offset=1');
    });

    it('retrieves a flag by id, and answers 404 for an unknown or malformed id', async () => {
      // Prepare
      const flag = await createFlag(server, { key: 'retrieve-me', filters: { groups: [{}] } });

      // Act
      const found = await api().get<FlagBody>(`${flagsPath}${flag.id}/`);
      const unknown = await api().get(`${flagsPath}999999/`);
      const malformed = await api().get(`${flagsPath}abc/`);

      // Assess
      expect(found.body).toEqual(flag);
      expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(malformed.status).toBe(404);
    });
  });

  describe('update and delete', () => {
    it('PATCHes only the given fields and bumps the version', async () => {
      // Prepare
      const flag = await createFlag(server, {
        key: 'patch-me',
        filters: { groups: [{ rollout_percentage: 20 }] },
      });

      // Act
      const renamed = await api().patch<FlagBody>(`${flagsPath}${flag.id}/`, {
        name: 'Renamed',
        active: false,
      });
      const keptFilters = await api().patch<FlagBody>(`${flagsPath}${flag.id}/`, {
        filters: { payloads: { true: 1 } },
      });

      // Assess
      expect(renamed.body).toMatchObject({
        name: 'Renamed',
        active: false,
        version: 2,
        filters: flag.filters,
      });
      expect(keptFilters.body).toMatchObject({ version: 3, filters: flag.filters });
    });

    it('soft-deletes with PATCH {deleted: true}: still retrievable, key free; reusing it removes the old flag', async () => {
      // Prepare
      const flag = await createFlag(server, { key: 'soft-delete', filters: { groups: [{}] } });

      // Act
      const deleted = await api().patch<FlagBody>(`${flagsPath}${flag.id}/`, { deleted: true });
      const retrieved = await api().get<FlagBody>(`${flagsPath}${flag.id}/`);
      const again = await api().post<FlagBody>(flagsPath, { key: 'soft-delete', filters: { groups: [{}] } });

      // Assess
      expect(deleted.body).toMatchObject({ deleted: true, version: 2 });
      expect(retrieved.body).toMatchObject({ id: flag.id, deleted: true });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(flag.id);
      // PostHog hard-deletes a soft-deleted flag whose key is reused.
      expect((await api().get(`${flagsPath}${flag.id}/`)).status).toBe(404);
    });

    it('refuses to rename a flag to a key another live flag has', async () => {
      // Prepare
      await createFlag(server, { key: 'taken-key', filters: { groups: [{}] } });
      const flag = await createFlag(server, { key: 'wants-taken-key', filters: { groups: [{}] } });

      // Act
      const response = await api().patch(`${flagsPath}${flag.id}/`, { key: 'taken-key' });

      // Assess
      expect(response).toMatchObject({ status: 400, body: { code: 'unique', attr: 'key' } });
    });

    it('refuses DELETE with 405 and an empty body', async () => {
      // Prepare
      const flag = await createFlag(server, { key: 'no-hard-delete', filters: { groups: [{}] } });

      // Act
      const response = await api().delete(`${flagsPath}${flag.id}/`);

      // Assess
      expect(response.status).toBe(405);
      expect(response.body).toBeUndefined();
      expect((await api().get<FlagBody>(`${flagsPath}${flag.id}/`)).body.deleted).toBe(false);
    });
  });

  describe('isolation', () => {
    it('answers 403 for another organization’s project and 404 for its flag ids in ours', async () => {
      // Prepare
      const other = await secondOrganization(server);
      const theirs = await privateApi(server, other.personalApiKey).post<FlagBody>(
        `/api/projects/${other.projectId}/feature_flags/`,
        { key: 'their-flag', filters: { groups: [{}] } },
      );

      // Act
      const ourKeyOnTheirProject = await api().get(`/api/projects/${other.projectId}/feature_flags/`);
      const theirIdInOurProject = await api().get(`${flagsPath}${theirs.body.id}/`);

      // Assess
      expect(theirs.status).toBe(201);
      expect(ourKeyOnTheirProject).toMatchObject({ status: 403, body: { code: 'permission_denied' } });
      expect(theirIdInOurProject.status).toBe(404);
    });
  });
});
