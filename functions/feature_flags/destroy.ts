import { projectRoute } from '../shared/http/private-route';

/**
 * `DELETE /api/projects/:project_id/feature_flags/:id/`: refused as PostHog's ForbidDestroyModel
 * refuses it, 405 with an empty body (`posthog/api/forbid_destroy_model.py`); a flag is soft-deleted with PATCH
 * `{"deleted": true}`. The caller is authenticated first, as DRF does before any method.
 */
export const destroyFlag = projectRoute(async () => ({ statusCode: 405, headers: {}, body: '' }));
