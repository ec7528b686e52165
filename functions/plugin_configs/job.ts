import { countPendingPluginJobs, recordPluginJob } from '../shared/db/plugin-jobs';
import { pluginById } from '../shared/domain/plugins/catalogue';
import { exportRangeOf } from '../shared/domain/plugins/historical-export';
import { EXPORT_HISTORICAL_EVENTS } from '../shared/domain/plugins/s3-export';
import { NotFoundError, ValidationError } from '../shared/http/errors';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { noContent } from '../shared/http/responses';
import { pluginJobSchema } from '../shared/schemas/plugin';
import { pluginConfigOfPath } from './load';

/** Jobs of one config that may wait to run at once. */
const maxPendingJobsPerConfig = 10;

/**
 * `POST /api/projects/:project_id/plugin_configs/:id/job/`: `{job: {type, payload, operation}}`,
 * 200 with an empty body, as PostHog's. The job must be a public job of the config's plugin (PostHog
 * queues any name and its plugin server fails it later); a `start` must carry the payload fields the
 * job's form marks required (and "Export historical events" valid dates). The request is recorded,
 * as PostHog enqueues it, for the exports function to run (functions/exports/historical.ts).
 */
export const runPluginJob = projectRoute(async ({ singleTable, event, project }) => {
  const config = await pluginConfigOfPath(singleTable, project.id, event);
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
    if (job.type === EXPORT_HISTORICAL_EVENTS) {
      const range = exportRangeOf(payload);
      if (!range.ok)
        throw new ValidationError('invalid_input', range.message, `job__payload__${range.field}`);
    }
  }
  // Each job may re-export the whole project: a config's queue of waiting jobs is kept short.
  if ((await countPendingPluginJobs(singleTable, project.id, config.id)) >= maxPendingJobsPerConfig) {
    throw new ValidationError(
      'invalid_input',
      `This plugin config already has ${maxPendingJobsPerConfig} jobs waiting to run; try again once they are done.`,
      'job',
    );
  }
  await recordPluginJob(singleTable, {
    type: job.type,
    payload: { ...payload, $operation: operation },
    pluginConfigId: config.id,
    pluginConfigTeam: project.id,
  });
  return noContent(200);
});
