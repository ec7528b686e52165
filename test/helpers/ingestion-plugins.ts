import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from './api';
import type { LocalServer } from './local-server';
import { eventually } from './local-server';

export interface StoredEvent {
  id: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
}
export interface Page<T> {
  count: number | null;
  next: string | null;
  previous: string | null;
  results: T[];
}
/** The ids of PostHog's ingestion plugins in Flock's catalogue. */
export const plugins = {
  geoip: 1,
  propertyFilter: 2,
  downsampling: 3,
  timestampParser: 6,
  unduplicator: 8,
  firstTime: 9,
};

/**
 * Capture, plugin configs and stored events of a test's projects on `server()` (read when called, so
 * a file can take these before its `beforeAll` starts or takes a server).
 */
export function ingestionPlugins(server: () => LocalServer) {
  const api = () => privateApi(server());

  async function capture(
    token: string,
    batch: { event: string; distinct_id: string; properties?: Record<string, unknown>; timestamp?: string }[],
  ): Promise<void> {
    const response = await postJson(server(), '/batch/', {
      api_key: token,
      batch: batch.map((event) => ({ uuid: randomUUID(), properties: {}, ...event })),
    });
    expect(response.status).toBe(200);
  }

  /** An enabled config of `plugin` in the project, first in order unless told otherwise. */
  async function enable(
    configs: string,
    plugin: number,
    config: Record<string, string> = {},
    order = 1,
  ): Promise<number> {
    const created = await api().post<{ id: number }>(configs, { plugin, enabled: true, order, config });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  const eventsNamed = async (projectId: number, name: string): Promise<StoredEvent[]> =>
    (
      await api().get<Page<StoredEvent>>(
        `/api/projects/${projectId}/events/?event=${encodeURIComponent(name)}`,
      )
    ).body.results;

  /** The stored events of a name once there are `count` of them. */
  const stored = (projectId: number, name: string, count: number, timeoutMs = 20_000) =>
    eventually(
      `${count} events named ${name}`,
      async () => {
        const events = await eventsNamed(projectId, name);
        return events.length >= count ? events : undefined;
      },
      timeoutMs,
    );

  return { capture, enable, eventsNamed, stored };
}
