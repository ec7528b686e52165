import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { startLocalServer } from '../helpers/local-server';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');

describe('npm run flock -- bootstrap', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('creates a working organization, project and personal key in the given table, isolated from others', async () => {
    // Act
    const { stdout } = await run(process.execPath, [
      join(root, 'node_modules/tsx/dist/cli.mjs'),
      join(root, 'bin/flock.ts'),
      'bootstrap',
      '--table',
      server.endpoints.tables.main,
      '--endpoint',
      server.endpoints.dynamodbEndpoint,
      '--organization',
      'Second org',
    ]);
    const created = JSON.parse(stdout) as {
      projectId: number;
      personalApiKey: string;
      projectApiKey: string;
    };

    // Assess
    expect(created.personalApiKey).toMatch(/^phx_[\w-]{43}$/);
    expect(created.projectApiKey).toMatch(/^phc_[\w-]{43}$/);
    const own = await privateApi(server, created.personalApiKey).get(
      `/api/projects/${created.projectId}/events/`,
    );
    expect(own.status).toBe(200);
    const other = await privateApi(server, created.personalApiKey).get(
      `/api/projects/${server.credentials.projectId}/events/`,
    );
    expect(other).toMatchObject({
      status: 403,
      body: { code: 'permission_denied', detail: "You don't have access to the project." },
    });
  });
});
