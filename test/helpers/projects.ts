import { privateApi } from './api';
import type { LocalServer } from './local-server';

export interface TestProject {
  readonly id: number;
  readonly token: string;
  /** `/api/projects/<id>/plugin_configs/` */
  readonly configs: string;
}

/** A project of its own for a test, so one test's plugin configs never touch another's events. */
export async function newProject(server: LocalServer, name: string): Promise<TestProject> {
  const created = await privateApi(server).post<{ id: number; api_token: string }>('/api/projects/', {
    name,
  });
  if (created.status !== 201) throw new Error(`creating a project answered ${created.status}`);
  return {
    id: created.body.id,
    token: created.body.api_token,
    configs: `/api/projects/${created.body.id}/plugin_configs/`,
  };
}
