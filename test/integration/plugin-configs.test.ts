import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { privateApi, rawRequest } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { documentClientOf, sharedLocalServer } from '../helpers/local-server';
import { newOrganization } from '../helpers/organizations';

interface Plugin {
  id: number;
  name: string;
  config_schema: { key?: string; secret?: boolean }[];
  public_jobs: Record<string, unknown>;
  capabilities: { methods: string[]; jobs: string[] };
}
interface PluginConfig {
  id: number;
  plugin: number;
  enabled: boolean;
  order: number;
  config: Record<string, string>;
  error: Record<string, unknown> | null;
  team_id: number;
  plugin_info: Plugin | null;
  delivery_rate_24h: number | null;
  created_at: string;
}
interface Page<T> {
  count: number | null;
  next: string | null;
  previous: string | null;
  results: T[];
}
interface ErrorBody {
  type: string;
  code: string;
  detail: string;
  attr: string | null;
}

const SECRET = '**************** POSTHOG SECRET FIELD ****************';
/** The catalogue's ids (functions/shared/domain/plugins): stable, so clients may hard-code them. */
const plugins = {
  geoIp: 1,
  propertyFilter: 2,
  downsampling: 3,
  taxonomy: 4,
  flattener: 5,
  timestampParser: 6,
  unduplicator: 8,
  s3Export: 10,
};
const s3Config = {
  awsAccessKey: 'AKIA-TEST',
  awsSecretAccessKey: 'very-secret',
  s3BucketName: 'exports',
};

/** The plugins and plugin configs API through the local server. */
describe('plugins and plugin configs API', () => {
  let server: LocalServer;
  let base: string;
  const api = () => privateApi(server);

  /** A multipart body as PostHog's UI sends it: every field text, `config` as JSON text. */
  const multipart = async <T>(
    method: string,
    path: string,
    fields: Record<string, string>,
    file?: string,
  ) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (file) form.append(file, new Blob(['x']), 'x.txt');
    const response = await fetch(`${server.credentials.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as T };
  };

  const expectError = (response: { status: number; body: unknown }, code: string, attr: string | null) =>
    expect({
      status: response.status,
      code: (response.body as ErrorBody).code,
      attr: (response.body as ErrorBody).attr,
    }).toEqual({
      status: 400,
      code,
      attr,
    });

  beforeAll(async () => {
    server = await sharedLocalServer('plugin configs');
    base = `/api/projects/${server.credentials.projectId}/plugin_configs/`;
  });

  afterAll(async () => {
    await server.stop();
  });

  describe('the catalogue', () => {
    it('lists the built-in plugins of the current organization in PostHog’s shape, by id', async () => {
      const page = await api().get<Page<Plugin>>('/api/organizations/@current/plugins/');
      expect(page.status).toBe(200);
      expect(page.body.count).toBe(10);
      expect(page.body.results.map((plugin) => plugin.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      for (const plugin of page.body.results) {
        expect(Object.keys(plugin).sort()).toEqual(
          [
            'capabilities',
            'config_schema',
            'description',
            'id',
            'is_global',
            'name',
            'plugin_type',
            'public_jobs',
            'tag',
            'url',
          ].sort(),
        );
      }
      const s3 = page.body.results.find((plugin) => plugin.id === plugins.s3Export)!;
      expect(s3.public_jobs).toHaveProperty(['Export historical events', 'payload', 'dateFrom']);
      expect(s3.config_schema.find((field) => field.key === 'awsSecretAccessKey')?.secret).toBe(true);
      expect(page.body.results.find((plugin) => plugin.id === plugins.geoIp)).toMatchObject({
        name: 'GeoIP',
        plugin_type: 'repository',
        is_global: true,
        capabilities: { methods: ['processEvent'] },
      });
    });

    it('pages with limit/offset, and answers by organization id as for @current', async () => {
      const me = await api().get<{ organization: { id: string } }>('/api/users/@me/');
      const page = await api().get<Page<Plugin>>(
        `/api/organizations/${me.body.organization.id}/plugins/?limit=3&offset=3`,
      );
      expect(page.status).toBe(200);
      expect(page.body.results.map((plugin) => plugin.id)).toEqual([4, 5, 6]);
      expect(page.body.next).toMatch(/limit=3&offset=6$/);
      expect(page.body.previous).toMatch(/limit=3$/);
    });

    it('answers 403 for an organization the caller is not a member of, 404 for an unknown one', async () => {
      const other = await newOrganization(server, { organizationName: 'Plugin outsiders' });
      const theirs = await privateApi(server, other.personalApiKey).get<{ organization: { id: string } }>(
        '/api/users/@me/',
      );
      const forbidden = await api().get<ErrorBody>(
        `/api/organizations/${theirs.body.organization.id}/plugins/`,
      );
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.code).toBe('permission_denied');
      const unknown = await api().get(`/api/organizations/00000000-0000-4000-8000-000000000000/plugins/`);
      expect(unknown.status).toBe(404);
      expect((await api().get('/api/organizations/not-a-uuid/plugins/')).status).toBe(404);
      const anonymous = await privateApi(server, null).get('/api/organizations/@current/plugins/');
      expect(anonymous.status).toBe(401);
    });
  });

  describe('create, retrieve, list', () => {
    it('creates a config (201) with every field of PostHog’s PluginConfigSerializer, validated settings and plugin_info', async () => {
      const created = await api().post<PluginConfig>(base, {
        plugin: plugins.downsampling,
        enabled: true,
        order: 4,
        config: { percentage: 50 },
      });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body).sort()).toEqual(
        [
          'config',
          'created_at',
          'delivery_rate_24h',
          'enabled',
          'error',
          'id',
          'order',
          'plugin',
          'plugin_info',
          'team_id',
        ].sort(),
      );
      expect(created.body).toMatchObject({
        plugin: plugins.downsampling,
        enabled: true,
        order: 4,
        // Numbers stored as the text PostHog's form stores; defaults filled in.
        config: { percentage: '50', samplingMethod: 'Distinct ID aware sampling' },
        error: null,
        team_id: server.credentials.projectId,
        plugin_info: { id: plugins.downsampling, name: 'Downsampling Plugin' },
        delivery_rate_24h: null,
      });
      expect(Date.parse(created.body.created_at)).not.toBeNaN();

      const read = await api().get<PluginConfig>(`${base}${created.body.id}/`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
    });

    it('updates the project’s config of a plugin rather than adding a second one (PostHog 2022)', async () => {
      const first = await api().post<PluginConfig>(base, { plugin: plugins.taxonomy, order: 9 });
      expect(first.body).toMatchObject({
        enabled: false,
        order: 9,
        config: { defaultNamingConvention: 'camelCase' },
      });
      const again = await api().post<PluginConfig>(base, {
        plugin: String(plugins.taxonomy),
        enabled: true,
        config: { defaultNamingConvention: 'snake_case' },
      });
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ id: first.body.id, enabled: true, order: 9 });
      expect(again.body.config.defaultNamingConvention).toBe('snake_case');
      const list = await api().get<Page<PluginConfig>>(base);
      expect(list.body.results.filter((config) => config.plugin === plugins.taxonomy)).toHaveLength(1);
    });

    it('refuses bad bodies with 400s naming the field, as PostHog words them', async () => {
      const missing = await api().post<ErrorBody>(base, { enabled: true });
      expectError(missing, 'required', 'plugin');
      expect(missing.body.detail).toBe('This field is required.');
      const unknown = await api().post<ErrorBody>(base, { plugin: 99 });
      expectError(unknown, 'does_not_exist', 'plugin');
      expect(unknown.body.detail).toBe('Invalid pk "99" - object does not exist.');
      expectError(await api().post(base, { plugin: 'GeoIP' }), 'incorrect_type', 'plugin');
      expectError(await api().post(base, { plugin: 1.5 }), 'does_not_exist', 'plugin');
      expectError(await api().post(base, { plugin: [1] }), 'invalid_input', 'plugin');
      const order = await api().post<ErrorBody>(base, { plugin: 1, order: 2 ** 31 });
      expectError(order, 'invalid_input', 'order');
      expect(order.body.detail).toBe('Ensure this value is less than or equal to 2147483647.');
      expectError(await api().post(base, { plugin: 1, order: 'first' }), 'invalid_input', 'order');
      expectError(await api().post(base, { plugin: 1, enabled: 'maybe' }), 'invalid_input', 'enabled');
      expectError(await api().post(base, { plugin: 1, error: 'bad' }), 'invalid_input', 'error');
      expectError(await api().post(base, { plugin: 1, config: 'x' }), 'invalid_input', 'config');
      expectError(
        await api().post(base, { plugin: plugins.downsampling, config: { percentage: { a: 1 } } }),
        'invalid_input',
        'config__percentage',
      );
      expectError(
        await api().post(base, { plugin: plugins.downsampling, config: { percent: '5' } }),
        'unknown_key',
        'config__percent',
      );
      expectError(
        await api().post(base, { plugin: plugins.unduplicator, config: { dedupMode: 'Whatever' } }),
        'invalid_choice',
        'config__dedupMode',
      );
      expectError(await api().post(base, { plugin: plugins.s3Export }), 'required', 'config__awsAccessKey');
      // Valid by the schema, refused by the plugin's own setup, with its message.
      const percentage = await api().post<ErrorBody>(base, {
        plugin: plugins.downsampling,
        config: { percentage: 'lots' },
      });
      expectError(percentage, 'invalid_input', 'config');
      expect(percentage.body.detail).toBe('Percentage must be a number between 0 and 100.');
      expectError(
        await api().post(base, {
          plugin: plugins.propertyFilter,
          config: { properties: 'p,'.repeat(40_000) },
        }),
        'invalid_input',
        'config',
      );
      const notJson = await rawRequest<ErrorBody>(server, 'POST', base, {
        headers: {
          authorization: `Bearer ${server.credentials.personalApiKey}`,
          'content-type': 'application/json',
        },
        body: '{"plugin":',
      });
      expect({ status: notJson.status, code: notJson.body.code }).toEqual({
        status: 400,
        code: 'parse_error',
      });
      const text = await rawRequest(server, 'POST', base, {
        headers: {
          authorization: `Bearer ${server.credentials.personalApiKey}`,
          'content-type': 'text/plain',
        },
        body: 'plugin=1',
      });
      expect(text.status).toBe(415);
      // None of them created anything.
      const list = await api().get<Page<PluginConfig>>(base);
      expect(list.body.results.map((config) => config.plugin)).not.toContain(plugins.s3Export);
      expect(list.body.results.map((config) => config.plugin)).not.toContain(plugins.geoIp);
    });

    it('takes multipart forms with config as JSON text, and masks secret settings on every read', async () => {
      const created = await multipart<PluginConfig>('POST', base, {
        plugin: String(plugins.s3Export),
        enabled: 'false',
        order: '7',
        config: JSON.stringify(s3Config),
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ plugin: plugins.s3Export, enabled: false, order: 7 });
      expect(created.body.config).toMatchObject({ awsAccessKey: 'AKIA-TEST', awsSecretAccessKey: SECRET });
      expect(JSON.stringify(created.body)).not.toContain('very-secret');
      const list = await api().get<Page<PluginConfig>>(base);
      expect(JSON.stringify(list.body)).not.toContain('very-secret');

      // The secret left out (or sent back masked) keeps its value; sent empty, it is required.
      const renamed = await multipart<PluginConfig>('PATCH', `${base}${created.body.id}/`, {
        config: JSON.stringify({ ...s3Config, awsSecretAccessKey: undefined, s3BucketName: 'other' }),
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body.config).toMatchObject({ s3BucketName: 'other', awsSecretAccessKey: SECRET });
      const cleared = await api().patch(`${base}${created.body.id}/`, {
        config: { ...s3Config, awsSecretAccessKey: '' },
      });
      expectError(cleared, 'required', 'config__awsSecretAccessKey');

      expectError(
        await multipart('POST', base, { plugin: String(plugins.s3Export), config: '{not json' }),
        'parse_error',
        'config',
      );
      expectError(
        await multipart('POST', base, { plugin: String(plugins.geoIp) }, 'add_attachment[db]'),
        'invalid_input',
        'add_attachment[db]',
      );
      expectError(await multipart('POST', base, { plugin: '1', order: 'x' }), 'invalid_input', 'order');
    });

    it('lists every config by order then plugin id, plugin_info null, in pages', async () => {
      const all = await api().get<Page<PluginConfig>>(base);
      expect(all.status).toBe(200);
      const orders = all.body.results.map((config) => [config.order, config.plugin]);
      expect(orders).toEqual([...orders].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!));
      expect(all.body.results.every((config) => config.plugin_info === null)).toBe(true);
      const page = await api().get<Page<PluginConfig>>(`${base}?limit=1&offset=1`);
      expect(page.body.count).toBe(all.body.count);
      expect(page.body.results).toEqual([all.body.results[1]]);
      expect(page.body.next).toMatch(/limit=1&offset=2$/);
      expectError(await api().get(`${base}?limit=x`), 'invalid_input', 'limit');
    });

    it('answers 404 for another project’s config, and for ids that are not integers', async () => {
      const project = await api().post<{ id: number }>('/api/projects/', { name: 'Plugins elsewhere' });
      const elsewhere = `/api/projects/${project.body.id}/plugin_configs/`;
      const theirs = await api().post<PluginConfig>(elsewhere, { plugin: plugins.flattener });
      expect(theirs.status).toBe(201);
      expect(theirs.body.team_id).toBe(project.body.id);
      for (const path of ['', 'frontend/', 'logs/']) {
        expect((await api().get(`${base}${theirs.body.id}/${path}`)).status).toBe(404);
      }
      expect((await api().patch(`${base}${theirs.body.id}/`, { enabled: true })).status).toBe(404);
      expect((await api().delete(`${base}${theirs.body.id}/`)).status).toBe(404);
      expect((await api().post(`${base}${theirs.body.id}/job/`, { job: { type: 'x' } })).status).toBe(404);
      expect((await api().get(`${base}abc/`)).status).toBe(404);
      expect((await api().get(`${elsewhere}${theirs.body.id}/`)).status).toBe(200);
      // Still disabled: the PATCH above reached nothing.
      expect((await api().get<PluginConfig>(`${elsewhere}${theirs.body.id}/`)).body.enabled).toBe(false);
    });
  });

  describe('update and delete', () => {
    it('PATCHes only the fields sent; the plugin of a config cannot change', async () => {
      const created = await api().post<PluginConfig>(base, {
        plugin: plugins.propertyFilter,
        enabled: true,
        order: 2,
        config: { properties: '$ip' },
      });
      const path = `${base}${created.body.id}/`;
      const disabled = await api().patch<PluginConfig>(path, { enabled: false });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toEqual({ ...created.body, enabled: false });
      const errored = await api().patch<PluginConfig>(path, { error: { message: 'seen', time: 'now' } });
      expect(errored.body.error).toEqual({ message: 'seen', time: 'now' });
      expect((await api().patch<PluginConfig>(path, { error: null })).body.error).toBeNull();
      expect((await api().patch<PluginConfig>(path, { plugin: plugins.propertyFilter })).status).toBe(200);
      expectError(await api().patch(path, { plugin: plugins.geoIp }), 'invalid_input', 'plugin');
      expectError(await api().patch(path, { order: 1.5 }), 'invalid_input', 'order');
      expectError(
        await api().patch(path, { config: { properties: 5, extra: 'x' } }),
        'unknown_key',
        'config__extra',
      );
      const reconfigured = await api().patch<PluginConfig>(path, { config: { properties: 'a,b' } });
      expect(reconfigured.body.config).toEqual({ properties: 'a,b' });
    });

    it('DELETE answers 204 and only disables the config, as PostHog', async () => {
      const created = await api().post<PluginConfig>(base, {
        plugin: plugins.timestampParser,
        enabled: true,
        order: 3,
      });
      const path = `${base}${created.body.id}/`;
      const deleted = await api().delete(path);
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeUndefined();
      const read = await api().get<PluginConfig>(path);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: created.body.id, enabled: false, order: 3 });
      expect((await api().delete(`${base}999999/`)).status).toBe(404);
    });
  });

  describe('rearrange, job, frontend, logs', () => {
    it('rearrange sets the order of enabled configs by config id or plugin id and answers them as a bare array', async () => {
      const project = await api().post<{ id: number }>('/api/projects/', { name: 'Rearranged' });
      const configs = `/api/projects/${project.body.id}/plugin_configs/`;
      const a = await api().post<PluginConfig>(configs, {
        plugin: plugins.flattener,
        enabled: true,
        order: 1,
      });
      const b = await api().post<PluginConfig>(configs, {
        plugin: plugins.timestampParser,
        enabled: true,
        order: 2,
      });
      const off = await api().post<PluginConfig>(configs, {
        plugin: plugins.taxonomy,
        enabled: false,
        order: 3,
      });

      const response = await api().patch<PluginConfig[]>(`${configs}rearrange/`, {
        orders: {
          [String(a.body.id)]: 5,
          [String(plugins.timestampParser)]: 4,
          [String(off.body.id)]: 0,
          '777': 1,
        },
      });
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      expect(response.body.map((config) => [config.id, config.order])).toEqual([
        [b.body.id, 4],
        [a.body.id, 5],
      ]);
      expect(response.body[0]!.plugin_info?.id).toBe(plugins.timestampParser);
      // The disabled config was not reordered.
      expect((await api().get<PluginConfig>(`${configs}${off.body.id}/`)).body.order).toBe(3);
      expect((await api().get<PluginConfig>(`${configs}${a.body.id}/`)).body.order).toBe(5);

      const unchanged = await api().patch<PluginConfig[]>(`${configs}rearrange/`, {});
      expect(unchanged.body.map((config) => config.id)).toEqual([b.body.id, a.body.id]);
      expectError(
        await api().patch(`${configs}rearrange/`, { orders: { [String(a.body.id)]: 'x' } }),
        'invalid_input',
        `orders__${a.body.id}`,
      );
      expectError(await api().patch(`${configs}rearrange/`, { orders: [1, 2] }), 'invalid_input', 'orders');
    });

    it('job records a public job of the plugin (200, empty body) and refuses any other with 400', async () => {
      const s3 = await api().post<PluginConfig>(base, { plugin: plugins.s3Export, config: s3Config });
      const job = `${base}${s3.body.id}/job/`;
      const payload = { dateFrom: '2024-01-01', dateTo: '2024-01-31' };
      const started = await api().post(job, { job: { type: 'Export historical events', payload } });
      expect(started.status).toBe(200);
      expect(started.body).toBeUndefined();

      const documents = documentClientOf(server);
      const recorded = await documents.send(
        new QueryCommand({
          TableName: server.endpoints.tables.main,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': `PLUGINJOB#${server.credentials.projectId}#${s3.body.id}` },
        }),
      );
      documents.destroy();
      expect(recorded.Items?.map((item) => JSON.parse(String(item.job_json)) as unknown)).toEqual([
        {
          type: 'Export historical events',
          payload: { ...payload, $operation: 'start' },
          pluginConfigId: s3.body.id,
          pluginConfigTeam: server.credentials.projectId,
        },
      ]);

      expectError(await api().post(job, { job: { type: 'Nope' } }), 'invalid_input', 'job__type');
      const untyped = await api().post<ErrorBody>(job, { job: { payload } });
      expectError(untyped, 'invalid_input', 'job__type');
      expect(untyped.body.detail).toBe('The job type must be specified!');
      expectError(
        await api().post(job, {
          job: { type: 'Export historical events', payload: { dateTo: '2024-01-31' } },
        }),
        'required',
        'job__payload__dateFrom',
      );
      expectError(
        await api().post(job, { job: { type: 'Export historical events', operation: 'pause' } }),
        'invalid_choice',
        'job__operation',
      );
      expectError(await api().post(job, {}), 'invalid_input', 'job');
      // A stop needs no payload.
      expect(
        (await api().post(job, { job: { type: 'Export historical events', operation: 'stop' } })).status,
      ).toBe(200);
      const filter = await api().post<PluginConfig>(base, { plugin: plugins.propertyFilter });
      expectError(
        await api().post(`${base}${filter.body.id}/job/`, {
          job: { type: 'Export historical events', payload },
        }),
        'invalid_input',
        'job__type',
      );
    });

    it('frontend answers PostHog’s JavaScript for a plugin without a frontend', async () => {
      const config = (await api().get<Page<PluginConfig>>(base)).body.results[0]!;
      const response = await rawRequest<string>(server, 'GET', `${base}${config.id}/frontend/`, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/javascript; charset=UTF-8');
      expect(response.body).toBe('export function getFrontendApp () { return {"no_frontend": true} }');
    });

    it('logs answer an empty page of errors for a quiet config and 400s for bad parameters', async () => {
      const config = (await api().get<Page<PluginConfig>>(base)).body.results[0]!;
      const logs = `${base}${config.id}/logs/`;
      // Its loads and unloads are logged (SYSTEM, INFO), nothing else.
      expect((await api().get(`${logs}?type_filter=ERROR&type_filter=WARN`)).body).toEqual({
        count: 0,
        next: null,
        previous: null,
        results: [],
      });
      const limit = await api().get<ErrorBody>(`${logs}?limit=ten`);
      expectError(limit, 'invalid_input', 'limit');
      expect(limit.body.detail).toBe('Query param limit must be omitted or an integer!');
      expectError(await api().get(`${logs}?offset=-1`), 'invalid_input', 'offset');
      expectError(await api().get(`${logs}?type_filter=FATAL`), 'invalid_choice', 'type_filter');
      expectError(await api().get(`${logs}?after=yesterday`), 'invalid_input', 'after');
      expectError(await api().get(`${logs}?before=2024-13-45T00:00:00Z`), 'invalid_input', 'before');
      expect(
        (await api().get(`${logs}?type_filter=ERROR,INFO&search=x&after=2024-01-01T00:00:00Z`)).status,
      ).toBe(200);
      // A window that holds nothing (before ≤ after, or older than the 7 days kept) is an empty page.
      const reversed = await api().get(`${logs}?after=2024-02-01T00:00:00Z&before=2024-01-01T00:00:00Z`);
      expect({ status: reversed.status, body: reversed.body }).toEqual({
        status: 200,
        body: { count: 0, next: null, previous: null, results: [] },
      });
    });
  });
});
