import type { CohortRecord } from '../shared/db/cohorts';
import { getCohort, isScheduled, listDueCohorts, nextDue, putCohort } from '../shared/db/cohorts';
import { forEachLimited } from '../shared/concurrency';
import { logger } from '../shared/logger';
import type { CalculationResult } from './calculate';
import { calculateCohort } from './calculate';
import { fairShare } from './fair-share';

/**
 * One run of the calculation schedule (every minute, EventBridge; the local server runs it too):
 * reads the due index, claims each due cohort with a lease (a conditional write, so two runs never
 * calculate one cohort at once), calculates it and records the outcome as PostHog does: success
 * sets `count`, `last_calculation`, `errors_calculating: 0`; failure sets `last_error_at`, and
 * `errors_calculating` counts it from the claim on, so a run that dies is counted too. The projects
 * take turns (fair-share.ts). A PATCH during the calculation keeps the cohort
 * `is_calculating` and due again once the lease ends.
 */

export interface SweepOptions {
  readonly tables: { readonly main: string; readonly events: string };
  readonly maxEvents: number;
  /** Cohorts claimed per run; the rest wait for the next run. */
  readonly maxCohorts: number;
  /** Calculations at once. */
  readonly concurrency: number;
  /** Epoch ms by which every calculation must have finished (the invocation's end, less a margin). */
  readonly deadline: number;
  /** How long a claim holds a cohort: longer than any run can last. */
  readonly leaseMs: number;
}

export interface SweepOutcome {
  readonly cohortId: number;
  readonly projectId: number;
  readonly result?: CalculationResult;
  readonly error?: string;
}

const maxWriteAttempts = 5;
/** Due cohorts read from each end of the index, per cohort a run may claim. */
const dueWindowFactor = 5;

/** Applies `change` to the latest stored cohort, retrying when another writer got there first. */
async function update(
  tableName: string,
  cohort: Pick<CohortRecord, 'team_id' | 'id'>,
  change: (latest: CohortRecord) => CohortRecord | undefined,
  now: Date,
): Promise<CohortRecord | undefined> {
  for (let attempt = 0; attempt < maxWriteAttempts; attempt++) {
    const latest = await getCohort(tableName, cohort.team_id, cohort.id, true);
    if (!latest) return undefined;
    const next = change(latest);
    if (!next) return undefined;
    const written = await putCohort(tableName, latest, next, now);
    if (written) return written;
  }
  throw new Error(`cohort ${cohort.id} kept changing while its calculation was recorded`);
}

/** Claims the cohort if it is still due and no calculation holds it. */
function claim(tableName: string, projectId: number, cohortId: number, leaseMs: number, now: Date) {
  return update(
    tableName,
    { team_id: projectId, id: cohortId },
    (latest) => {
      const due = nextDue(latest, now);
      if (!isScheduled(latest) || due === undefined || due > now.toISOString()) return undefined;
      // Counted as failed from the start: a run that dies (timeout, crash) never records its outcome,
      // and a cohort that kills every run must still leave the schedule after its 21st attempt.
      return {
        ...latest,
        is_calculating: true,
        calculating_until: new Date(now.getTime() + leaseMs).toISOString(),
        errors_calculating: latest.errors_calculating + 1,
      };
    },
    now,
  );
}

/** Records the outcome of the calculation of `claimed` (the version it calculated). */
function finish(tableName: string, claimed: CohortRecord, outcome: { count: number } | { error: Error }) {
  const now = new Date();
  return update(
    tableName,
    claimed,
    (latest) => {
      // A change made while it ran (a PATCH) asks for another calculation of the newer version.
      const stillPending = latest.pending_version > claimed.pending_version;
      const base = { ...latest, calculating_until: null, is_calculating: stillPending };
      // The claim already counted this attempt as a failure.
      if ('error' in outcome) return { ...base, last_error_at: now.toISOString() };
      return {
        ...base,
        count: outcome.count,
        last_calculation: now.toISOString(),
        errors_calculating: 0,
        last_error_at: null,
        version: Math.max(latest.version ?? 0, claimed.pending_version),
      };
    },
    now,
  );
}

export async function sweep(options: SweepOptions): Promise<SweepOutcome[]> {
  const now = new Date();
  // Both ends of the due index: a project's backlog of overdue cohorts fills one end, and a cohort of
  // another project that just became due is at the other; then the projects take turns.
  const window = options.maxCohorts * dueWindowFactor;
  const ends = await Promise.all([
    listDueCohorts(options.tables.main, now, window, 'most_overdue'),
    listDueCohorts(options.tables.main, now, window, 'latest_due'),
  ]);
  const due = fairShare(ends.flat(), options.maxCohorts);
  const outcomes: SweepOutcome[] = [];
  await forEachLimited(due, options.concurrency, async ({ projectId, cohortId }) => {
    if (Date.now() > options.deadline) return;
    const claimed = await claim(options.tables.main, projectId, cohortId, options.leaseMs, new Date());
    if (!claimed) return;
    try {
      const result = await calculateCohort(options.tables, claimed, {
        maxEvents: options.maxEvents,
        deadline: options.deadline,
      });
      await finish(options.tables.main, claimed, { count: result.count });
      logger.info('Cohort calculated', { projectId, cohortId, ...result });
      outcomes.push({ projectId, cohortId, result });
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      logger.warn('Cohort calculation failed', { projectId, cohortId, error: failure });
      await finish(options.tables.main, claimed, { error: failure });
      outcomes.push({ projectId, cohortId, error: `${failure.name}: ${failure.message}` });
    }
  });
  return outcomes;
}
