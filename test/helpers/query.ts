import { PutObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { parquetOf } from '../../functions/lake/parquet';
import { lakeDateOf, lakeFileKey } from '../../functions/shared/lake/layout';
import type { LakeEvent } from '../../functions/shared/lake/row';
import { lakeRowOf } from '../../functions/shared/lake/row';
import type { ApiResponse } from './api';
import { privateApi } from './api';
import { lakeS3Of } from './lake';
import type { LocalServer } from './local-server';

/** A lake event with a known timestamp (ISO UTC). */
export function lakeEvent(
  event: string,
  distinctId: string,
  timestamp: string,
  properties: Record<string, unknown> = {},
): LakeEvent {
  return {
    uuid: randomUUID(),
    event,
    distinct_id: distinctId,
    timestamp,
    created_at: timestamp,
    properties,
    elements_chain: '',
    person_id: null,
    person_properties: { email: `${distinctId}@example.com` },
  };
}

/**
 * Writes `events` into the server's lake as the lake function would: one Parquet file per project-day,
 * under `events/project_id=<id>/date=<day>/`. Answers the keys written.
 */
export async function putLakeEvents(
  server: LocalServer,
  projectId: number,
  events: readonly LakeEvent[],
): Promise<string[]> {
  const byDate = new Map<string, LakeEvent[]>();
  for (const item of events) {
    const date = lakeDateOf(item.timestamp);
    byDate.set(date, [...(byDate.get(date) ?? []), item]);
  }
  const s3 = lakeS3Of(server);
  const keys: string[] = [];
  try {
    for (const [date, items] of byDate) {
      const key = lakeFileKey(projectId, date, randomUUID());
      const rows = items.map((item) => lakeRowOf(item, {}, new Date(item.timestamp)));
      await s3.send(
        new PutObjectCommand({ Bucket: server.endpoints.lakeBucket, Key: key, Body: await parquetOf(rows) }),
      );
      keys.push(key);
    }
  } finally {
    s3.destroy();
  }
  return keys;
}

/** POSTs `query` to the server's query endpoint of its project (or `path` given). */
export function postQuery<T = Record<string, unknown>>(
  server: LocalServer,
  query: unknown,
  extra: Record<string, unknown> = {},
  path = `/api/projects/${server.credentials.projectId}/query/`,
): Promise<ApiResponse<T>> {
  return privateApi(server).post<T>(path, { query, ...extra });
}

/** A HogQL query's request node. */
export const hogql = (query: string) => ({ kind: 'HogQLQuery', query });
