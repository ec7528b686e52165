import { postJson, privateApi } from './api';
import type { LocalServer } from './local-server';
import { eventually } from './local-server';

/**
 * Sends events to `/batch/`, `batchSize` at a time and in order, and waits until the project's
 * events listing counts exactly as many (the consumer has stored them all).
 */
export async function captureAndWaitForCount(
  server: LocalServer,
  events: readonly Record<string, unknown>[],
  batchSize: number,
): Promise<void> {
  for (let i = 0; i < events.length; i += batchSize) {
    const response = await postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: events.slice(i, i + batchSize),
    });
    if (response.status !== 200) throw new Error(`/batch/ answered ${response.status}`);
  }
  const path = `/api/projects/${server.credentials.projectId}/events/?limit=1000`;
  await eventually(
    `the ${events.length} events to be stored`,
    async () => {
      const page = await privateApi(server).get<{ count: number | null }>(path);
      return page.body.count === events.length ? true : undefined;
    },
    60_000,
  );
}
