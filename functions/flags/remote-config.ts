import { fetchTeamFailed } from '../shared/public/errors';
import { projectOfToken } from '../shared/public/projects';
import type { ProjectTokenItem } from '../shared/db/projects';
import { NotFoundError } from '../shared/http/errors';
import { json } from '../shared/http/responses';
import type { HttpEvent, HttpResult, RouteFunction } from '../shared/http/types';
import { logger } from '../shared/logger';
import { projectFlagsFor } from './definitions';
import type { FlagsSettings } from './decide';

/**
 * posthog-js's remote config (`lib/src/remote-config.js`): `GET /array/<token>/config.js`, a script setting
 * `window._POSTHOG_REMOTE_CONFIG[token]`, with `GET /array/<token>/config` as its JSON fallback. The
 * SDK turns gzip on only if `supportedCompression` has `gzip-js`, and autocapture only on an explicit
 * `autocapture_opt_out: false`. Flock has no session recording, surveys, heatmaps or site apps.
 */
export function remoteConfig(token: string, hasFeatureFlags: boolean) {
  return {
    token,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    siteApps: [],
  };
}

/** JSON that is also safe inside a script: no `</script>`, no line terminators JavaScript rejects. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The script PostHog serves (its `config.js` shape). */
export function remoteConfigScript(token: string, config: ReturnType<typeof remoteConfig>): string {
  return [
    '(function() {',
    '  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};',
    `  window._POSTHOG_REMOTE_CONFIG[${scriptJson(token)}] = {`,
    `    config: ${scriptJson(config)},`,
    '    siteApps: []',
    '  }',
    '})();',
  ].join('\n');
}

async function projectOf(
  settings: FlagsSettings,
  event: HttpEvent,
): Promise<{ token: string; project: ProjectTokenItem }> {
  const token = event.pathParameters?.token ?? '';
  let project: ProjectTokenItem | undefined;
  try {
    project = await projectOfToken(settings.tableName, token);
  } catch (error) {
    logger.error('Could not resolve the project of a remote config request', { error: error as Error });
    throw fetchTeamFailed();
  }
  if (!project) throw new NotFoundError();
  return { token, project };
}

/** Whether the SDK should ask `/flags` at all; when the definitions can't be read, assume so. */
async function hasFeatureFlags(settings: FlagsSettings, projectId: number): Promise<boolean> {
  try {
    return (await projectFlagsFor(settings.tableName, projectId)).active.length > 0;
  } catch {
    return true;
  }
}

async function configOf(settings: FlagsSettings, event: HttpEvent) {
  const { token, project } = await projectOf(settings, event);
  return remoteConfig(token, await hasFeatureFlags(settings, project.project_id));
}

/** `GET /array/<token>/config`: the config as JSON; 404 for a token no project has. */
export const remoteConfigJson =
  (settings: FlagsSettings): RouteFunction =>
  async (event) =>
    json(200, await configOf(settings, event));

/** `GET /array/<token>/config.js`: the same as a script; CORS comes with it (a crossorigin script). */
export const remoteConfigJs =
  (settings: FlagsSettings): RouteFunction =>
  async (event): Promise<HttpResult> => {
    const config = await configOf(settings, event);
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/javascript' },
      body: remoteConfigScript(config.token, config),
    };
  };
