import type { MembershipLevel } from '../db/memberships';
import type { Project } from '../domain/project';
import type { ProjectBasicResponse, ProjectResponse } from '../schemas/project';
import type { Timezone } from '../schemas/timezones';

/**
 * A project in the full shape (PostHog's TeamSerializer), field by field. `effective_membership_level` is the
 * caller's organization level: Flock has no per-project access control yet, so `access_control` is
 * stored and returned but grants nothing beyond organization membership.
 */
export function serializeProject(project: Project, level: MembershipLevel | null): ProjectResponse {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organization,
    api_token: project.api_token,
    app_urls: project.app_urls,
    name: project.name,
    slack_incoming_webhook: project.slack_incoming_webhook,
    created_at: project.created_at,
    updated_at: project.updated_at,
    anonymize_ips: project.anonymize_ips,
    completed_snippet_onboarding: project.completed_snippet_onboarding,
    ingested_event: project.ingested_event,
    test_account_filters: project.test_account_filters,
    test_account_filters_default_checked: project.test_account_filters_default_checked,
    path_cleaning_filters: project.path_cleaning_filters,
    is_demo: project.is_demo,
    timezone: project.timezone as Timezone,
    data_attributes: project.data_attributes,
    person_display_name_properties: project.person_display_name_properties,
    correlation_config: project.correlation_config,
    session_recording_opt_in: project.session_recording_opt_in,
    capture_console_log_opt_in: project.capture_console_log_opt_in,
    effective_membership_level: level,
    access_control: project.access_control,
    has_group_types: project.has_group_types,
    primary_dashboard: project.primary_dashboard,
    live_events_columns: project.live_events_columns,
    recording_domains: project.recording_domains,
  };
}

/** A project in the reduced shape of the list (and of `team` in `/api/users/@me/`). */
export function serializeProjectBasic(project: Project, level: MembershipLevel | null): ProjectBasicResponse {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organization,
    api_token: project.api_token,
    name: project.name,
    completed_snippet_onboarding: project.completed_snippet_onboarding,
    ingested_event: project.ingested_event,
    is_demo: project.is_demo,
    timezone: project.timezone as Timezone,
    effective_membership_level: level,
    access_control: project.access_control,
  };
}
