import type { ApiResponse } from '../../helpers/api';
import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import type { BootstrappedOrganization } from '../../helpers/organizations';
import { newOrganization } from '../../helpers/organizations';
import { setToolEnvironment } from '../../../bin/environment';

/** A flag as the API returns it (the fields these tests read). */
export interface FlagBody {
  id: number;
  key: string;
  name: string;
  active: boolean;
  deleted: boolean;
  version: number;
  filters: Record<string, unknown>;
  [field: string]: unknown;
}

/** Creates a flag through the API and fails the test unless it is created. */
export async function createFlag(server: LocalServer, body: Record<string, unknown>): Promise<FlagBody> {
  const response = await privateApi(server).post<FlagBody>(
    `/api/projects/${server.credentials.projectId}/feature_flags/`,
    body,
  );
  if (response.status !== 201) throw new Error(`flag not created: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** POSTs a body to a public flags endpoint as posthog-node does (plain JSON). */
export async function postFlags<T = Record<string, unknown>>(
  server: LocalServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const response = await fetch(`${server.credentials.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/**
 * Records a group type of the server's project straight in its DynamoDB, for tests that need one
 * without ingesting events that name it.
 */
export async function seedGroupType(server: LocalServer, index: number, name: string): Promise<void> {
  setToolEnvironment({ AWS_ENDPOINT_URL_DYNAMODB: server.endpoints.dynamodbEndpoint });
  const { putGroupType } = await import('../../../functions/shared/db/group-types');
  await putGroupType(server.endpoints.tables.main, server.credentials.projectId, index, name);
}

/** A second organization with its own project and key, as the ops CLI's bootstrap makes it. */
export function secondOrganization(server: LocalServer): Promise<BootstrappedOrganization> {
  return newOrganization(server, { organizationName: 'Other org' });
}
