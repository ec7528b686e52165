import type { Paginated } from '../../../functions/shared/http/pagination';
import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { sharedLocalServer } from '../../helpers/local-server';
import type { BootstrappedOrganization } from '../../helpers/organizations';
import { newOrganization } from '../../helpers/organizations';

interface Organization {
  id: string;
  name: string;
  slug: string;
  membership_level: number | null;
  teams: { id: number; name: string }[];
  [field: string]: unknown;
}

/** PostHog's organization endpoints, as its own tools call them, scoped to the caller. */
describe('organizations', () => {
  let server: LocalServer;
  let other: BootstrappedOrganization;
  beforeAll(async () => {
    server = await sharedLocalServer('organizations', { organization: true });
    other = await newOrganization(server, { organizationName: 'Elsewhere' });
  });
  afterAll(async () => {
    await server.stop();
  });
  const api = () => privateApi(server);

  it('lists only the caller’s organizations, each with its projects, in PostHog’s shape', async () => {
    const page = await api().get<Paginated<Organization>>('/api/organizations/');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ count: 1, next: null, previous: null });
    const [organization] = page.body.results;
    expect(Object.keys(organization!).sort()).toEqual(
      [
        'available_features',
        'created_at',
        'id',
        'is_member_join_email_enabled',
        'membership_level',
        'metadata',
        'name',
        'slug',
        'teams',
        'updated_at',
      ].sort(),
    );
    expect(organization!.membership_level).toBe(15);
    expect(organization!.teams.map((team) => team.id)).toEqual([server.credentials.projectId]);
    expect(organization!.id).not.toBe(other.organizationId);
    // The other organization's owner sees theirs alone.
    const theirs = await privateApi(server, other.personalApiKey).get<Paginated<Organization>>(
      '/api/organizations/',
    );
    expect(theirs.body.results.map((org) => org.id)).toEqual([other.organizationId]);
  });

  it('retrieves one by uuid or @current, and answers 404 for another organization or a bad id', async () => {
    const [mine] = (await api().get<Paginated<Organization>>('/api/organizations/')).body.results;
    const byId = await api().get<Organization>(`/api/organizations/${mine!.id}/`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(mine);
    expect((await api().get<Organization>('/api/organizations/@current/')).body).toEqual(mine);
    for (const id of [other.organizationId, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const refused = await api().get<{ type: string; code: string }>(`/api/organizations/${id}/`);
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({ type: 'invalid_request', code: 'not_found' });
      expect((await api().get(`/api/organizations/${id}/projects/`)).status).toBe(404);
    }
  });

  it('lists an organization’s projects like GET /api/projects/, paged', async () => {
    const created = await api().post<{ id: number }>('/api/projects/', { name: 'Second' });
    expect(created.status).toBe(201);
    const all = await api().get<Paginated<{ id: number }>>('/api/organizations/@current/projects/');
    expect(all.status).toBe(200);
    expect(all.body.results.map((project) => project.id)).toEqual([
      server.credentials.projectId,
      created.body.id,
    ]);
    expect(all.body).toEqual((await api().get('/api/projects/')).body);
    const second = await api().get<Paginated<{ id: number }>>(
      '/api/organizations/@current/projects/?limit=1&offset=1',
    );
    expect(second.body).toMatchObject({ count: 2, next: null, results: [{ id: created.body.id }] });
  });

  it('answers GET /api/personal_api_keys/@current/ with the calling key, masked', async () => {
    const current = await api().get<{ id: string; scopes: string[]; mask_value: string }>(
      '/api/personal_api_keys/@current/',
    );
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ scopes: ['*'], scoped_teams: [], scoped_organizations: [] });
    expect(server.credentials.personalApiKey.endsWith(current.body.mask_value.slice(-4))).toBe(true);
    const theirs = await privateApi(server, other.personalApiKey).get<{ id: string }>(
      '/api/personal_api_keys/@current/',
    );
    expect(theirs.body.id).not.toBe(current.body.id);
  });
});
