/** A project (PostHog's "team"), with every field of PostHog's TeamSerializer (`posthog/api/team.py`). */
export interface Project {
  id: number;
  uuid: string;
  organization: string;
  api_token: string;
  app_urls: string[];
  name: string;
  slack_incoming_webhook: string | null;
  created_at: string;
  updated_at: string;
  anonymize_ips: boolean;
  completed_snippet_onboarding: boolean;
  ingested_event: boolean;
  test_account_filters: unknown[] | Record<string, unknown>;
  test_account_filters_default_checked: boolean;
  path_cleaning_filters: unknown[] | Record<string, unknown>;
  is_demo: boolean;
  timezone: string;
  data_attributes: unknown[] | Record<string, unknown>;
  person_display_name_properties: string[];
  correlation_config: Record<string, unknown>;
  session_recording_opt_in: boolean;
  capture_console_log_opt_in: boolean;
  access_control: boolean;
  has_group_types: boolean;
  primary_dashboard: number | null;
  live_events_columns: string[] | null;
  recording_domains: string[] | null;
}

/** A new project with PostHog's defaults. */
export function newProject(fields: {
  id: number;
  uuid: string;
  organization: string;
  api_token: string;
  name: string;
  now: string;
}): Project {
  return {
    id: fields.id,
    uuid: fields.uuid,
    organization: fields.organization,
    api_token: fields.api_token,
    app_urls: [],
    name: fields.name,
    slack_incoming_webhook: null,
    created_at: fields.now,
    updated_at: fields.now,
    anonymize_ips: false,
    completed_snippet_onboarding: false,
    ingested_event: false,
    test_account_filters: [],
    test_account_filters_default_checked: false,
    path_cleaning_filters: [],
    is_demo: false,
    timezone: 'UTC',
    data_attributes: ['data-attr'],
    person_display_name_properties: ['email', 'name', 'username'],
    correlation_config: {},
    session_recording_opt_in: false,
    capture_console_log_opt_in: false,
    access_control: false,
    has_group_types: false,
    primary_dashboard: null,
    live_events_columns: null,
    recording_domains: null,
  };
}
