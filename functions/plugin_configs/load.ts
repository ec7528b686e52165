import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import { getPluginConfig } from '../shared/db/plugin-configs';
import { NotFoundError } from '../shared/http/errors';
import { integerPathId } from '../shared/http/request';
import type { HttpEvent } from '../shared/http/types';

/** The config the path names, in the caller's project; 404 otherwise (another project's too). */
export async function pluginConfigOfPath(
  tableName: string,
  projectId: number,
  event: HttpEvent,
): Promise<PluginConfigRecord> {
  const config = await getPluginConfig(tableName, projectId, integerPathId(event), true);
  if (!config) throw new NotFoundError();
  return config;
}
