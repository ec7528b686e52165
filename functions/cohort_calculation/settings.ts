/**
 * The cohort calculation function's settings, shared by the stack (lib/stateless-stack.ts) and the
 * local server so they cannot drift.
 */

/** Lambda's maximum: a calculation of a large project reads every person once. */
export const cohortCalculationTimeoutSeconds = 900;
/** How often the schedule runs (PostHog's Celery beat runs its cohort task every minute). */
export const cohortScheduleMinutes = 1;
/** Runs at once at most: each reads whole projects, so a backlog is worked off, not fanned out. */
export const cohortCalculationConcurrency = 2;

/** Events one calculation may read for behavioural filters (FLOCK_COHORT_MAX_EVENTS): a few minutes' work. */
export const defaultCohortMaxEvents = 2_000_000;
