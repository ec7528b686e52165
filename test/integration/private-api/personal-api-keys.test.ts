import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { sharedLocalServer } from '../../helpers/local-server';

/** Personal API keys, through the local server. */
let server: LocalServer;

beforeAll(async () => {
  server = await sharedLocalServer('personal API keys', { organization: true });
});

afterAll(async () => {
  await server.stop();
});

interface Key {
  id: string;
  label: string;
  value: string | null;
  mask_value: string;
  created_at: string;
  last_used_at: string | null;
  user_id: number;
}

interface Page<T> {
  count: number;
  results: T[];
}

const api = (key?: string) => privateApi(server, key ?? server.credentials.personalApiKey);

describe('/api/personal_api_keys/', () => {
  it('creates a key whose full value is returned once, and which works at once (201)', async () => {
    // Act
    const created = await api().post<Key>('/api/personal_api_keys/', { label: 'CI' });

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.value).toMatch(/^phx_[\w-]{43}$/);
    expect(created.body).toMatchObject({
      label: 'CI',
      mask_value: `${created.body.value!.slice(0, 4)}...${created.body.value!.slice(-4)}`,
      last_used_at: null,
    });
    expect((await api(created.body.value!).get('/api/projects/')).status).toBe(200);
    const again = await api().get<Key>(`/api/personal_api_keys/${created.body.id}/`);
    expect(again).toMatchObject({ status: 200, body: { id: created.body.id, value: null } });
  });

  it('lists the caller’s keys newest first, masked, never with their value', async () => {
    // Prepare
    const newest = await api().post<Key>('/api/personal_api_keys/', { label: 'newest' });

    // Act
    const list = await api().get<Page<Key>>('/api/personal_api_keys/');

    // Assess
    expect(list.status).toBe(200);
    expect(list.body.results[0]?.id).toBe(newest.body.id);
    expect(list.body.count).toBe(list.body.results.length);
    for (const key of list.body.results) {
      expect(key.value).toBeNull();
      expect(key.mask_value).toMatch(/^phx_\.\.\.[\w-]{4}$/);
      expect(JSON.stringify(key)).not.toContain(newest.body.value!.slice(4, 20));
    }
    expect(list.body.results.map((key) => key.label)).toContain('bootstrap');
  });

  it('answers 400 naming label when it is missing', async () => {
    const response = await api().post('/api/personal_api_keys/', {});
    expect(response).toMatchObject({
      status: 400,
      body: { type: 'validation_error', code: 'required', attr: 'label', detail: 'This field is required.' },
    });
  });

  it('deletes a key (204): it stops working at once', async () => {
    // Prepare
    const created = await api().post<Key>('/api/personal_api_keys/', { label: 'short-lived' });
    const doomed = created.body.value!;
    expect((await api(doomed).get('/api/users/@me/')).status).toBe(200);

    // Act
    const response = await api().delete(`/api/personal_api_keys/${created.body.id}/`);

    // Assess
    expect(response.status).toBe(204);
    expect(await api(doomed).get('/api/users/@me/')).toMatchObject({
      status: 401,
      body: { code: 'invalid_personal_api_key', detail: 'Invalid Personal API key.' },
    });
    expect((await api().get(`/api/personal_api_keys/${created.body.id}/`)).status).toBe(404);
  });

  it('lets a key delete itself', async () => {
    const created = await api().post<Key>('/api/personal_api_keys/', { label: 'self' });
    const self = api(created.body.value!);
    expect((await self.delete(`/api/personal_api_keys/${created.body.id}/`)).status).toBe(204);
    expect((await self.get('/api/personal_api_keys/')).status).toBe(401);
  });

  it('answers 404 for an unknown key id', async () => {
    const response = await api().delete('/api/personal_api_keys/5b0f3f0e-7d0c-4f6c-8e0a-0c8f3a8f2f11/');
    expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});
