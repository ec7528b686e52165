/**
 * Personal API key scopes, as PostHog has them (`posthog/scopes.py`, `posthog/permissions.py`
 * `APIScopePermission`): a key carries `*` (everything) or `<object>:read|write` scopes; an operation
 * requires one or more of them; `<object>:write` also grants `<object>:read`.
 */

/**
 * The scope objects a key may name: PostHog's `APIScopeObject` (`posthog/scopes.py`) less its
 * `INTERNAL_API_SCOPE_OBJECTS`, which no user-made key may carry, so that a key made for a PostHog tool
 * is accepted as it is; plus `personal_api_key`, the object of PostHog's `PersonalAPIKeyViewSet` while
 * it had one. Flock's own routes use only some of them (functions/routes.ts).
 */
export const scopeObjects = [
  'access_control',
  'account',
  'action',
  'activity_log',
  'ai_observability_clusters',
  'alert',
  'annotation',
  'approvals',
  'batch_export',
  'batch_import',
  'batch_import_support',
  'billing',
  'business_knowledge',
  'canvas',
  'cohort',
  'comment',
  'conversation',
  'customer_analytics',
  'customer_journey',
  'customer_profile_config',
  'customer_task',
  'dashboard',
  'dashboard_template',
  'data_catalog',
  'data_catalog_approval',
  'dataset',
  'early_access_feature',
  'element',
  'endpoint',
  'engineering_analytics',
  'error_tracking',
  'evaluation',
  'event_definition',
  'event_filter',
  'experiment',
  'experiment_holdout',
  'experiment_saved_metric',
  'export',
  'external_data_schema',
  'external_data_source',
  'feature_flag',
  'field_note',
  'file_system',
  'file_system_shortcut',
  'group',
  'health_issue',
  'heatmap',
  'hog_flow',
  'hog_function',
  'ingestion_warning',
  'insight',
  'insight_variable',
  'integration',
  'legal_document',
  'link',
  'live_debugger',
  'llm_analytics',
  'llm_gateway',
  'llm_playground',
  'llm_prompt',
  'llm_provider_key',
  'llm_skill',
  'logs',
  'loop',
  'marketing_analytics',
  'mcp_analytics',
  'metrics',
  'notebook',
  'organization',
  'organization_integration',
  'organization_member',
  'person',
  'personal_api_key',
  'plugin',
  'product_enablement',
  'product_tour',
  'project',
  'property_definition',
  'query',
  'query_performance',
  'replay_scanner',
  'revenue_analytics',
  'review_hog',
  'session_recording',
  'session_recording_playlist',
  'sharing_configuration',
  'signal_scout',
  'stamphog',
  'streamlit_app',
  'subscription',
  'survey',
  'tagger',
  'task',
  'ticket',
  'toolbar',
  'tracing',
  'uploaded_media',
  'usage_metric',
  'user',
  'user_interview',
  'vision_action',
  'vision_alert',
  'visual_review',
  'warehouse_objects',
  'warehouse_table',
  'warehouse_view',
  'web_analytics',
  'webhook',
  'wizard_session',
] as const;
export type ScopeObject = (typeof scopeObjects)[number];

export type ScopeAction = 'read' | 'write';

/** One scope an operation requires. */
export type RequiredScope = `${ScopeObject}:${ScopeAction}`;

/** What a key may carry: a required scope, or `*` for all of them. */
export type KeyScope = RequiredScope | '*';

/** Everything: the scopes of a key created without any, and of keys stored before scopes existed. */
export const fullAccess: readonly KeyScope[] = ['*'];

const knownObjects: ReadonlySet<string> = new Set(scopeObjects);

/** Whether `value` is a scope a key may carry (PostHog's `validate_scopes`). */
export function isKeyScope(value: string): value is KeyScope {
  if (value === '*') return true;
  const parts = value.split(':');
  return parts.length === 2 && knownObjects.has(parts[0]!) && (parts[1] === 'read' || parts[1] === 'write');
}

/** Whether a key with `keyScopes` may do what `required` allows: `*`, that scope, or its `:write` for a `:read`. */
export function grants(keyScopes: readonly string[], required: KeyScope): boolean {
  if (keyScopes.includes('*')) return true;
  if (required === '*') return false;
  if (keyScopes.includes(required)) return true;
  return required.endsWith(':read') && keyScopes.includes(`${required.slice(0, -':read'.length)}:write`);
}

/** The first of `required` that `keyScopes` does not grant, if any. */
export function missingScope(
  keyScopes: readonly string[],
  required: readonly KeyScope[],
): KeyScope | undefined {
  return required.find((scope) => !grants(keyScopes, scope));
}
