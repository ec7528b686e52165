import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../functions/shared/db/keys';
import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { documentClientOf, eventually, sharedLocalServer } from '../../helpers/local-server';

/** Projects and the current user, through the local server. */
let server: LocalServer;

beforeAll(async () => {
  server = await sharedLocalServer('projects', { organization: true });
});

afterAll(async () => {
  await server.stop();
});

interface Project {
  id: number;
  uuid: string;
  organization: string;
  api_token: string;
  name: string;
  timezone: string;
  anonymize_ips: boolean;
  effective_membership_level: number;
  updated_at: string;
  [field: string]: unknown;
}

interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const api = () => privateApi(server);

/** What capture answers for a token: 200 when it knows it, 401 when not. */
const capture = (token: string) =>
  postJson(server, '/capture/', { api_key: token, event: 'probe', properties: { distinct_id: 'p' } });

async function createProject(body: Record<string, unknown>): Promise<Project> {
  const response = await api().post<Project>('/api/projects/', body);
  expect(response.status).toBe(201);
  return response.body;
}

describe('/api/projects/', () => {
  it('lists the projects of the current organization in the reduced shape', async () => {
    const response = await api().get<Page<Project>>('/api/projects/');
    expect(response.status).toBe(200);
    expect(response.body.count).toBeGreaterThanOrEqual(1);
    const project = response.body.results.find((candidate) => candidate.id === server.credentials.projectId);
    expect(Object.keys(project!).sort()).toEqual(
      [
        'id',
        'uuid',
        'organization',
        'api_token',
        'name',
        'completed_snippet_onboarding',
        'ingested_event',
        'is_demo',
        'timezone',
        'effective_membership_level',
        'access_control',
      ].sort(),
    );
    expect(project).toMatchObject({
      api_token: server.credentials.projectApiKey,
      effective_membership_level: 15,
    });
  });

  it("creates a project with a phc_ token and PostHog's defaults, ignoring read-only fields (201)", async () => {
    // Act
    const project = await createProject({
      name: 'Mobile',
      timezone: 'Europe/Berlin',
      app_urls: ['https://example.com'],
      id: 999,
      api_token: 'phc_chosen_by_client',
      ingested_event: true,
      is_demo: true,
    });

    // Assess
    expect(project.api_token).toMatch(/^phc_[\w-]{43}$/);
    expect(project.id).not.toBe(999);
    expect(project).toMatchObject({
      name: 'Mobile',
      timezone: 'Europe/Berlin',
      app_urls: ['https://example.com'],
      ingested_event: false,
      is_demo: false,
      anonymize_ips: false,
      completed_snippet_onboarding: false,
      slack_incoming_webhook: null,
      test_account_filters: [],
      path_cleaning_filters: [],
      data_attributes: ['data-attr'],
      person_display_name_properties: ['email', 'name', 'username'],
      correlation_config: {},
      session_recording_opt_in: false,
      capture_console_log_opt_in: false,
      effective_membership_level: 15,
      access_control: false,
      has_group_types: false,
      primary_dashboard: null,
      live_events_columns: null,
      recording_domains: null,
    });
    expect(Object.keys(project)).toHaveLength(28);
  });

  it('names a project created without a name "Default Project"', async () => {
    expect((await createProject({})).name).toBe('Default Project');
  });

  it('makes its token work for capture at once, through the lookup item', async () => {
    const project = await createProject({ name: 'Capturing' });
    expect(await capture(project.api_token)).toMatchObject({ status: 200, body: { status: 1 } });
  });

  it('retrieves a project in the full shape, by id and as @current', async () => {
    // Prepare
    const project = await createProject({ name: 'Current' });

    // Act
    const byId = await api().get<Project>(`/api/projects/${project.id}/`);
    const current = await api().get<Project>('/api/projects/@current/');

    // Assess
    expect(byId).toMatchObject({ status: 200, body: project });
    // Creating a project makes it the creator's current project, as in PostHog.
    expect(current).toMatchObject({ status: 200, body: { id: project.id } });
  });

  it('answers 404 Project not found. for an unknown or non-integer project id', async () => {
    for (const id of ['424242', 'abc', '1.5']) {
      const response = await api().get(`/api/projects/${id}/`);
      expect({ id, status: response.status, body: response.body }).toEqual({
        id,
        status: 404,
        body: { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null },
      });
    }
  });

  it('updates only the given fields and refreshes updated_at', async () => {
    // Prepare
    const project = await createProject({ name: 'Before', timezone: 'Asia/Tokyo' });

    // Act
    const response = await api().patch<Project>(`/api/projects/${project.id}/`, {
      name: 'After',
      recording_domains: ['https://a.example'],
      api_token: 'phc_nope',
      organization: '00000000-0000-4000-8000-000000000000',
    });

    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: 'After',
      timezone: 'Asia/Tokyo',
      recording_domains: ['https://a.example'],
      api_token: project.api_token,
      organization: project.organization,
    });
    expect(response.body.updated_at > String(project.updated_at)).toBe(true);
    expect((await api().get<Project>(`/api/projects/${project.id}/`)).body.name).toBe('After');
  });

  it("keeps the token lookup item's anonymize_ips in step with the project", async () => {
    // Prepare
    const project = await createProject({ name: 'Private' });
    const table = documentClientOf(server);
    const tokenItem = async () =>
      (
        await table.send(
          new GetCommand({
            TableName: server.endpoints.tables.main,
            Key: keys.projectToken(project.api_token),
          }),
        )
      ).Item;

    // Act
    await api().patch(`/api/projects/${project.id}/`, { anonymize_ips: true });

    // Assess
    expect(await tokenItem()).toMatchObject({ project_id: project.id, anonymize_ips: true });
    await api().patch(`/api/projects/${project.id}/`, { anonymize_ips: false });
    expect(await tokenItem()).toMatchObject({ anonymize_ips: false });
    table.destroy();
  });

  it('validates timezone against Flock’s list, naming the field', async () => {
    const response = await api().patch(`/api/projects/${server.credentials.projectId}/`, {
      timezone: 'Europe/Kyiv',
    });
    expect(response).toMatchObject({
      status: 400,
      body: {
        type: 'validation_error',
        code: 'invalid_choice',
        detail: '"Europe/Kyiv" is not a valid choice.',
        attr: 'timezone',
      },
    });
  });

  it('deletes a project (204): its token stops working at once and the project is gone', async () => {
    // Prepare
    const project = await createProject({ name: 'Doomed' });

    // Act
    const response = await api().delete(`/api/projects/${project.id}/`);

    // Assess
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(await capture(project.api_token)).toMatchObject({
      status: 401,
      body: { code: 'invalid_api_key' },
    });
    expect((await api().get(`/api/projects/${project.id}/`)).status).toBe(404);
    expect((await api().get(`/api/projects/${project.id}/events/`)).status).toBe(404);
    const list = await api().get<Page<Project>>('/api/projects/');
    expect(list.body.results.map((candidate) => candidate.id)).not.toContain(project.id);
  });

  it('refuses a deleted project’s token within capture’s 5 s cache even after it was in use', async () => {
    // Prepare: capture has looked the token up, so its container caches it.
    const project = await createProject({ name: 'Cached' });
    expect((await capture(project.api_token)).status).toBe(200);

    // Act
    await api().delete(`/api/projects/${project.id}/`);

    // Assess
    const refused = await eventually(
      'capture to refuse the deleted project’s token',
      async () => {
        const response = await capture(project.api_token);
        return response.status === 401 ? response : undefined;
      },
      8_000,
    );
    expect(refused.body).toMatchObject({ code: 'invalid_api_key' });
  });

  it("moves the caller's current project elsewhere when it is deleted", async () => {
    // Prepare
    const project = await createProject({ name: 'Current, then deleted' });

    // Act
    await api().delete(`/api/projects/${project.id}/`);

    // Assess
    const current = await api().get<Project>('/api/projects/@current/');
    expect(current.status).toBe(200);
    expect(current.body.id).not.toBe(project.id);
  });
});

describe('/api/users/@me/', () => {
  interface Me {
    id: number;
    uuid: string;
    email: string;
    first_name: string;
    team: { id: number; api_token: string } | null;
    organization: { id: string; teams: { id: number }[] } | null;
    organizations: { id: string; membership_level: number }[];
    [field: string]: unknown;
  }

  it('describes the user, the current project, the organization and organizations', async () => {
    // Prepare
    await api().patch('/api/users/@me/', { set_current_team: server.credentials.projectId });

    // Act
    const response = await api().get<Me>('/api/users/@me/');

    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      email: 'admin@flock.local',
      team: { id: server.credentials.projectId, api_token: server.credentials.projectApiKey },
      organizations: [{ membership_level: 15 }],
    });
    expect(response.body.organization?.teams.map((team) => team.id)).toContain(server.credentials.projectId);
    for (const field of ['date_joined', 'distinct_id', 'is_staff', 'has_password', 'events_column_config'])
      expect(response.body).toHaveProperty(field);
  });

  it('is also served at /users/@me/', async () => {
    const [prefixed, bare] = await Promise.all([
      api().get<Me>('/api/users/@me/'),
      api().get<Me>('/users/@me/'),
    ]);
    expect(bare).toMatchObject({ status: 200, body: prefixed.body });
  });

  it("changes the user's name and current project", async () => {
    // Prepare
    const project = await createProject({ name: 'Switch target' });
    await api().patch('/api/users/@me/', { set_current_team: server.credentials.projectId });

    // Act
    const response = await api().patch<Me>('/users/@me/', {
      first_name: 'Grace',
      set_current_team: project.id,
    });

    // Assess
    expect(response).toMatchObject({ status: 200, body: { first_name: 'Grace', team: { id: project.id } } });
    expect((await api().get<Project>('/api/projects/@current/')).body.id).toBe(project.id);
    expect((await api().get<Me>('/api/users/@me/')).body.first_name).toBe('Grace');
  });

  it('refuses a current project that does not exist, naming the field', async () => {
    const response = await api().patch('/api/users/@me/', { set_current_team: 987654 });
    expect(response).toMatchObject({
      status: 400,
      body: { type: 'validation_error', code: 'does_not_exist', attr: 'set_current_team' },
    });
  });

  it('answers 404 for a user other than the caller', async () => {
    const response = await api().get('/api/users/6a3c1c3e-2c6f-4c4f-9a43-6d9a7f1f0a09/');
    expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});
