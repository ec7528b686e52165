import { recordPluginJob } from '../shared/db/plugin-jobs';
import { pluginById } from '../shared/domain/plugins/catalogue';
import { NotFoundError, ValidationError } from '../shared/http/errors';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { noContent } from '../shared/http/responses';
import { pluginJobSchema } from '../shared/schemas/plugin';
import { pluginConfigOfPath } from './load';

/**
 * `POST /api/projects/:project_id/plugin_configs/:id/job/`: `{job: {type, payload, operation}}`,
 * 200 with an empty body, as PostHog's. The job must be a public job of the config's plugin (PostHog
 * queues any name and its plugin server fails it later); a `start` must carry the payload fields the
 * job's form marks required. The request is recorded, as PostHog enqueues it, for the exports
 * function to run (not built yet: docs/plugins.md).
 */
export const runPluginJob = projectRoute(async ({ mainTable, event, project }) => {
  const config = await pluginConfigOfPath(mainTable, project.id, event);
  const { job } = parseBody(event, pluginJobSchema);
  const plugin = pluginById(config.plugin);
  if (!plugin) throw new NotFoundError();
  const spec = Object.hasOwn(plugin.public_jobs, job.type) ? plugin.public_jobs[job.type] : undefined;
  if (!spec) {
    throw new ValidationError(
      'invalid_input',
      `"${job.type.slice(0, 200)}" is not a public job of ${plugin.name}.`,
      'job__type',
    );
  }
  const operation = job.operation ?? 'start';
  const payload = job.payload ?? {};
  if (operation === 'start') {
    for (const [field, { required }] of Object.entries(spec.payload)) {
      if (required && (payload[field] === undefined || payload[field] === null || payload[field] === '')) {
        throw new ValidationError('required', 'This field is required.', `job__payload__${field}`);
      }
    }
  }
  await recordPluginJob(mainTable, {
    type: job.type,
    payload: { ...payload, $operation: operation },
    pluginConfigId: config.id,
    pluginConfigTeam: project.id,
  });
  return noContent(200);
});
