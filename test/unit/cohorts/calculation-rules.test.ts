import type { CohortRecord } from '../../../functions/shared/db/cohorts';
import {
  isScheduled,
  maxCalculationErrors,
  nextDue,
  recalculateAfterMs,
} from '../../../functions/shared/db/cohorts';
import {
  satisfiesCount,
  windowOf,
  windowsByEvent,
} from '../../../functions/shared/domain/cohorts/behavioral';
import { leavesOf } from '../../../functions/shared/domain/cohorts/filters';
import type { PropertyFilter, PropertyGroup } from '../../../functions/shared/domain/flags';

const now = new Date('2026-03-31T12:00:00.000Z');

const behavioral = (fields: Record<string, unknown>): PropertyFilter =>
  ({
    type: 'behavioral',
    key: 'bought',
    value: 'performed_event',
    event_type: 'events',
    ...fields,
  }) as PropertyFilter;

describe('behavioural windows', () => {
  it.each([
    [{ time_value: 2, time_interval: 'hour' }, '2026-03-31T10:00:00.000Z'],
    [{ time_value: 30, time_interval: 'day' }, '2026-03-01T12:00:00.000Z'],
    [{ time_value: 1, time_interval: 'week' }, '2026-03-24T12:00:00.000Z'],
    // Calendar months, as ClickHouse's INTERVAL: 31 March less one month is 28 February.
    [{ time_value: 1, time_interval: 'month' }, '2026-02-28T12:00:00.000Z'],
    [{ time_value: 13, time_interval: 'month' }, '2025-02-28T12:00:00.000Z'],
    [{ time_value: 1, time_interval: 'year' }, '2025-03-31T12:00:00.000Z'],
    [{ explicit_datetime: '-7d' }, '2026-03-24T12:00:00.000Z'],
    [{ explicit_datetime: '2026-01-15' }, '2026-01-15T00:00:00.000Z'],
  ])('starts %j at %s', (fields, since) => {
    expect(windowOf(behavioral(fields), now)).toEqual({ event: 'bought', since });
  });

  it('reads each window once per event, earliest first', () => {
    // Prepare: two trees sharing a window, and a second event
    const tree = (values: PropertyFilter[]): PropertyGroup => ({ type: 'AND', values });
    const week = behavioral({ time_value: 7, time_interval: 'day' });
    const month = behavioral({ time_value: 30, time_interval: 'day' });
    const other = { ...week, key: 'signed up' } as PropertyFilter;

    // Act
    const windows = windowsByEvent(
      [tree([week, month]), tree([{ ...week }, other]), undefined],
      leavesOf,
      now,
    );

    // Assess
    expect([...windows.keys()]).toEqual(['bought', 'signed up']);
    expect(windows.get('bought')!.map((window) => window.since)).toEqual([
      '2026-03-01T12:00:00.000Z',
      '2026-03-24T12:00:00.000Z',
    ]);
  });

  it.each([
    ['performed_event', undefined, undefined, [false, true, true]],
    ['performed_event_multiple', 'gte', 2, [false, false, true]],
    ['performed_event_multiple', 'gt', 1, [false, false, true]],
    ['performed_event_multiple', 'lte', 1, [true, true, false]],
    ['performed_event_multiple', 'lt', 1, [true, false, false]],
    ['performed_event_multiple', 'eq', 1, [false, true, false]],
    ['performed_event_multiple', 'exact', 0, [true, false, false]],
    ['performed_event_multiple', undefined, 2, [false, false, true]],
  ])('%s %s %s holds for 0, 1, 2 events: %j', (value, operator, operatorValue, expected) => {
    const filter = behavioral({ value, operator, operator_value: operatorValue });
    expect([0, 1, 2].map((count) => satisfiesCount(filter, count))).toEqual(expected);
  });
});

describe('the calculation schedule', () => {
  const cohort = (fields: Partial<CohortRecord>): CohortRecord => ({
    id: 1,
    team_id: 1,
    name: 'c',
    description: '',
    groups: [],
    filters: null,
    deleted: false,
    is_static: false,
    is_calculating: false,
    count: 3,
    last_calculation: '2026-03-31T11:50:00.000Z',
    errors_calculating: 0,
    last_error_at: null,
    created_at: '2026-03-01T00:00:00.000Z',
    created_by: null,
    version: 1,
    pending_version: 1,
    revision: 1,
    ...fields,
  });

  it('is due at once while calculating or never calculated, else 15 minutes after the last one', () => {
    expect(nextDue(cohort({ is_calculating: true }), now)).toBe(now.toISOString());
    expect(nextDue(cohort({ last_calculation: null }), now)).toBe(now.toISOString());
    expect(nextDue(cohort({}), now)).toBe(
      new Date(Date.parse('2026-03-31T11:50:00.000Z') + recalculateAfterMs).toISOString(),
    );
  });

  it('waits for a running calculation’s lease, even when a change makes the cohort due', () => {
    const lease = '2026-03-31T12:14:00.000Z';
    expect(nextDue(cohort({ is_calculating: true, calculating_until: lease }), now)).toBe(lease);
    expect(
      nextDue(cohort({ is_calculating: true, calculating_until: '2026-03-31T11:00:00.000Z' }), now),
    ).toBe(now.toISOString());
  });

  it('leaves out deleted, static and repeatedly failing cohorts (more than 20 failures)', () => {
    expect(isScheduled(cohort({ deleted: true }))).toBe(false);
    expect(isScheduled(cohort({ is_static: true }))).toBe(false);
    expect(isScheduled(cohort({ errors_calculating: maxCalculationErrors }))).toBe(true);
    expect(isScheduled(cohort({ errors_calculating: maxCalculationErrors + 1 }))).toBe(false);
    expect(nextDue(cohort({ errors_calculating: maxCalculationErrors + 1 }), now)).toBeUndefined();
  });
});
