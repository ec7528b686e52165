import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, privateApi } from '../helpers/api';
import { startLocalServer } from '../helpers/local-server';

describe('npm start on a persistent data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flock-lifecycle-'));

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('finishes accepted events on Ctrl-C, then reuses its credentials and data on the next start', async () => {
    // Prepare
    const first = await startLocalServer({ persistent: true, dataDir, npmStart: true });
    const uuid = randomUUID();
    expect(first.output()).toContain('(new)');
    // The process npm start runs is the server itself, so Ctrl-C reaches the code that drains.
    expect(first.endpoints.pid).toBe(first.pid);

    // Act: capture, then stop at once.
    const response = await postJson(first, '/capture/', {
      api_key: first.credentials.projectApiKey,
      event: 'just before stopping',
      uuid,
      properties: { distinct_id: 'u' },
    });
    const exitCode = await first.stop();
    const second = await startLocalServer({ persistent: true, dataDir, npmStart: true });

    // Assess
    try {
      expect(response.status).toBe(200);
      expect(exitCode).toBe(0);
      expect(second.output()).toContain('(reused)');
      expect(second.credentials.personalApiKey).toBe(first.credentials.personalApiKey);
      expect(second.credentials.projectApiKey).toBe(first.credentials.projectApiKey);
      const events = await privateApi(second).get<{ results: { id: string }[] }>(
        `/api/projects/${second.credentials.projectId}/events/`,
      );
      expect(events.body.results.map((event) => event.id)).toContain(uuid);
    } finally {
      await second.stop();
    }
  }, 90_000);
});
