import { newProject } from '../../../../functions/shared/domain/project';
import { validationErrorFromZod } from '../../../../functions/shared/http/errors';
import {
  eventDefinitionSchema,
  eventDefinitionUpdateSchema,
} from '../../../../functions/shared/schemas/event-definition';
import { personalApiKeySchema } from '../../../../functions/shared/schemas/personal-api-key';
import {
  projectBasicSchema,
  projectSchema,
  projectWriteSchema,
} from '../../../../functions/shared/schemas/project';
import { timezones } from '../../../../functions/shared/schemas/timezones';
import { serializeProject, serializeProjectBasic } from '../../../../functions/shared/serializers/project';
import { serializeEventDefinition } from '../../../../functions/event_definitions/serialize';
import { serializePersonalApiKey } from '../../../../functions/personal_api_keys/serialize';

/** A project's fields, in the order PostHog's TeamSerializer sends them. */
const specProjectFields = [
  'id',
  'uuid',
  'organization',
  'api_token',
  'app_urls',
  'name',
  'slack_incoming_webhook',
  'created_at',
  'updated_at',
  'anonymize_ips',
  'completed_snippet_onboarding',
  'ingested_event',
  'test_account_filters',
  'test_account_filters_default_checked',
  'path_cleaning_filters',
  'is_demo',
  'timezone',
  'data_attributes',
  'person_display_name_properties',
  'correlation_config',
  'session_recording_opt_in',
  'capture_console_log_opt_in',
  'effective_membership_level',
  'access_control',
  'has_group_types',
  'primary_dashboard',
  'live_events_columns',
  'recording_domains',
];
/** The fields of a project in a list (PostHog's TeamBasic). */
const specProjectListFields = [
  'id',
  'uuid',
  'organization',
  'api_token',
  'name',
  'completed_snippet_onboarding',
  'ingested_event',
  'is_demo',
  'timezone',
  'effective_membership_level',
  'access_control',
];
/** An event definition's fields, in PostHog's order. */
const specEventDefinitionFields = [
  'id',
  'name',
  'owner',
  'description',
  'tags',
  'volume_30_day',
  'query_usage_30_day',
  'created_at',
  'updated_at',
  'updated_by',
  'last_seen_at',
  'last_updated_at',
  'verified',
  'verified_at',
  'verified_by',
  'is_action',
  'action_id',
  'is_calculating',
  'last_calculated_at',
  'created_by',
  'post_to_slack',
];

const project = newProject({
  id: 7,
  uuid: '0b6c2c3e-2c6f-4c4f-9a43-6d9a7f1f0a01',
  organization: '1f0e8a52-6b1e-4f44-a9b1-31a4f1b0c0de',
  api_token: 'phc_token',
  name: 'P',
  now: '2026-11-21T19:13:00.000Z',
});

describe('project shapes', () => {
  it('serializes exactly the project fields, in order, valid against the published schema', () => {
    const serialized = serializeProject({ ...project, extra: 'never shown' } as typeof project, 15);
    expect(Object.keys(serialized)).toEqual(specProjectFields);
    expect(Object.keys(projectSchema.shape)).toEqual(specProjectFields);
    expect(projectSchema.strict().parse(serialized)).toEqual(serialized);
  });

  it('serializes the list shape with exactly the fields of TeamBasic', () => {
    const serialized = serializeProjectBasic(project, 8);
    expect(Object.keys(serialized)).toEqual(specProjectListFields);
    expect(projectBasicSchema.strict().parse(serialized)).toEqual(serialized);
  });

  it('accepts every writable project field and ignores read-only and unknown ones', () => {
    const parsed = projectWriteSchema.parse({
      name: 'New',
      timezone: 'Europe/Paris',
      anonymize_ips: true,
      primary_dashboard: null,
      id: 99,
      api_token: 'phc_mine',
      ingested_event: true,
      is_demo: true,
      effective_membership_level: 1,
      whatever: 1,
    });
    expect(parsed).toEqual({
      name: 'New',
      timezone: 'Europe/Paris',
      anonymize_ips: true,
      primary_dashboard: null,
    });
  });

  it.each([
    [
      { timezone: 'Mars/Olympus_Mons' },
      'timezone',
      'invalid_choice',
      '"Mars/Olympus_Mons" is not a valid choice.',
    ],
    [{ name: '' }, 'name', 'invalid_input', 'This field may not be blank.'],
    [{ anonymize_ips: 'yes' }, 'anonymize_ips', 'invalid_input', undefined],
    [{ app_urls: ['ok', 3] }, 'app_urls__1', 'invalid_input', undefined],
    [{ primary_dashboard: 1.5 }, 'primary_dashboard', 'invalid_input', undefined],
  ])('refuses %j with a validation_error naming %s', (body, attr, code, detail) => {
    const result = projectWriteSchema.safeParse(body);
    expect(result.success).toBe(false);
    const error = validationErrorFromZod(result.error!);
    expect(error).toMatchObject({ statusCode: 400, type: 'validation_error', attr, code });
    if (detail) expect(error.detail).toBe(detail);
  });
});

describe('free-form JSON fields', () => {
  const nested = (depth: number): unknown => (depth === 0 ? {} : { inner: nested(depth - 1) });

  it.each([
    ['nested deeper than DynamoDB stores', { test_account_filters: [nested(20)] }, 'test_account_filters'],
    ['larger than 16 KB', { data_attributes: ['x'.repeat(17 * 1024)] }, 'data_attributes'],
    ['with a number DynamoDB cannot hold', { correlation_config: { big: 1e300 } }, 'correlation_config'],
    ['with too many entries', { app_urls: Array.from({ length: 201 }, () => 'x') }, 'app_urls'],
    [
      'with a key named constructor',
      { test_account_filters: [{ constructor: 'x' }] },
      'test_account_filters',
    ],
    [
      'with a key named constructor, deep inside',
      { correlation_config: { a: { b: JSON.parse('{"constructor":{"name":"Set"}}') as unknown } } },
      'correlation_config',
    ],
  ])('refuses a value %s with a 400 naming the field, instead of failing the write', (_why, body, attr) => {
    const result = projectWriteSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(validationErrorFromZod(result.error!)).toMatchObject({ statusCode: 400, attr });
  });

  it('accepts ordinary filters', () => {
    const filters = [{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }];
    expect(projectWriteSchema.parse({ test_account_filters: filters })).toEqual({
      test_account_filters: filters,
    });
  });
});

describe('timezones', () => {
  it('are exactly the 439 values of Flock’s list', () => {
    expect(timezones).toHaveLength(439);
    expect(new Set(timezones).size).toBe(timezones.length);
    for (const zone of [
      'UTC',
      'GMT',
      'America/Argentina/Buenos_Aires',
      'Europe/Kiev',
      'US/Pacific',
      'Canada/Newfoundland',
    ]) {
      expect(timezones).toContain(zone);
    }
    // Real IANA zones Flock's list does not have.
    for (const zone of ['Europe/Kyiv', 'Asia/Calcutta', 'Etc/UTC', 'America/Ciudad_Juarez']) {
      expect(timezones).not.toContain(zone);
    }
  });
});

describe('event definition shapes', () => {
  const item = {
    PK: 'PROJECT#7',
    SK: 'EVDEF#signup',
    id: '0bdbf14b-0eb5-553b-8e9c-c2f541ee8d04',
    project: 7,
    name: 'signup',
    created_at: '2026-11-20T10:00:00.000Z',
    last_seen_at: '2026-11-21T10:00:00.000Z',
  };

  it('serializes exactly the event definition fields, in order, with PostHog defaults for unset ones', () => {
    const serialized = serializeEventDefinition(item, 12, new Map());
    expect(Object.keys(serialized)).toEqual(specEventDefinitionFields);
    expect(Object.keys(eventDefinitionSchema.shape)).toEqual(specEventDefinitionFields);
    expect(eventDefinitionSchema.strict().parse(serialized)).toEqual(serialized);
    expect(serialized).toMatchObject({
      owner: null,
      description: null,
      tags: [],
      volume_30_day: 12,
      query_usage_30_day: null,
      updated_at: null,
      updated_by: null,
      verified: false,
      is_action: false,
      created_by: null,
      post_to_slack: false,
    });
  });

  it('embeds the users who updated and verified it as UserBasic', () => {
    const user = {
      id: 3,
      uuid: '0b6c2c3e-2c6f-4c4f-9a43-6d9a7f1f0a01',
      distinct_id: 'd3',
      first_name: 'Ann',
      email: 'ann@example.com',
      date_joined: '2026-01-01T00:00:00.000Z',
      current_organization_id: 'o',
      current_project_id: 7,
    };
    const serialized = serializeEventDefinition(
      {
        ...item,
        updated_by_id: 3,
        verified_by_id: 3,
        verified: true,
        updated_at: '2026-11-21T11:00:00.000Z',
      },
      0,
      new Map([[3, user]]),
    );
    const basic = { id: 3, uuid: user.uuid, distinct_id: 'd3', first_name: 'Ann', email: 'ann@example.com' };
    expect(serialized).toMatchObject({ updated_by: basic, verified_by: basic, verified: true });
    expect(serialized.last_updated_at).toBe('2026-11-21T11:00:00.000Z');
  });

  it('accepts only the writable event definition fields', () => {
    expect(
      eventDefinitionUpdateSchema.parse({
        owner: 3,
        description: 'd',
        tags: ['a'],
        verified: true,
        post_to_slack: false,
        name: 'renamed',
        volume_30_day: 1,
      }),
    ).toEqual({ owner: 3, description: 'd', tags: ['a'], verified: true, post_to_slack: false });
    const wrong = eventDefinitionUpdateSchema.safeParse({ owner: 'me' });
    expect(validationErrorFromZod(wrong.error!).attr).toBe('owner');
  });
});

describe('personal API key shape', () => {
  const key = {
    id: '5b0f3f0e-7d0c-4f6c-8e0a-0c8f3a8f2f11',
    user_id: 3,
    label: 'ci',
    mask_value: 'phx_...abcd',
    created_at: '2026-11-21T19:13:00.000Z',
    last_used_at: null,
    scopes: ['feature_flag:read' as const],
  };

  it('shows the value only when given (at creation), the mask always', () => {
    expect(serializePersonalApiKey(key)).toEqual({
      ...key,
      value: null,
      // PostHog's key shape names the projects and organizations a key is limited to; Flock's keys
      // are never limited so, and PostHog's agent toolkit reads both before offering a tool.
      scoped_teams: [],
      scoped_organizations: [],
    });
    expect(serializePersonalApiKey(key, 'phx_full').value).toBe('phx_full');
    expect(personalApiKeySchema.strict().parse(serializePersonalApiKey(key))).toBeTruthy();
  });
});
