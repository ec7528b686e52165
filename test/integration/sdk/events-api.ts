import { setTimeout as sleep } from 'node:timers/promises';
import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';

/** An event as `GET /api/projects/:id/events/…` returns it (the fields these tests read). */
export interface ApiEvent {
  id: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
  person: {
    uuid: string;
    distinct_ids: string[];
    is_identified: boolean;
    properties: Record<string, unknown>;
  } | null;
}

/**
 * Polls `probe` until `done` holds for its value, for at most `timeoutMs`, and returns the last value
 * either way: ingestion is asynchronous, and a test that asserts on what it finally saw reports
 * *what* is missing rather than only that time ran out.
 */
export async function settle<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(200);
  }
}

/** Reads events through the private API, by uuid (`GET /api/projects/:id/events/:uuid/`). */
export function eventsApi(server: LocalServer) {
  const path = `/api/projects/${server.credentials.projectId}/events`;
  const byUuid = async (uuid: string): Promise<ApiEvent | undefined> => {
    const response = await privateApi(server).get<ApiEvent>(`${path}/${uuid}/`);
    return response.status === 200 ? response.body : undefined;
  };
  /** The stored events of `uuids` that are there now, by uuid. */
  const read = async (uuids: readonly string[]): Promise<Map<string, ApiEvent>> => {
    const found = await Promise.all(uuids.map(byUuid));
    return new Map(found.flatMap((event) => (event ? [[event.id, event] as const] : [])));
  };
  return {
    byUuid,
    read,
    /** `GET /api/projects/:id/events/?<query>` */
    list: async (query: string): Promise<ApiEvent[]> => {
      const response = await privateApi(server).get<{ results: ApiEvent[] }>(`${path}/?${query}`);
      if (response.status !== 200) throw new Error(`events list: ${response.status}`);
      return response.body.results;
    },
  };
}

/** Every event on one person, whose distinct ids include `distinctIds`. */
export const onePerson = (events: readonly ApiEvent[], distinctIds: readonly string[]): boolean => {
  const person = events[0]?.person;
  return (
    person !== null &&
    person !== undefined &&
    events.every((event) => event.person?.uuid === person.uuid) &&
    distinctIds.every((id) => person.distinct_ids.includes(id))
  );
};
