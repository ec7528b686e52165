import type { Context, ScheduledEvent } from 'aws-lambda';
import { envNames, eventsTableEnv, loadConfig, numberSetting, singleTableEnv } from '../shared/config';
import { invocationHandler } from '../shared/invocation';
import { countMetric, metricNames } from '../shared/metrics';
import { defaultCohortMaxEvents } from './settings';
import type { SweepOutcome } from './sweep';
import { sweep } from './sweep';

const config = loadConfig(eventsTableEnv.and(singleTableEnv));
const tables = { main: config[envNames.singleTable], events: config[envNames.eventsTable] };

/** Left of the invocation when the run stops starting work (recording outcomes takes a moment). */
const marginMs = 30_000;

/**
 * The cohort calculation function, run every minute by the schedule (see sweep.ts). Answers the
 * outcome of each cohort it calculated, for logs and the local server.
 */
export const handler = invocationHandler(
  async (_event: ScheduledEvent, context: Context): Promise<SweepOutcome[]> => {
    const remaining = context.getRemainingTimeInMillis();
    const outcomes = await sweep({
      tables,
      maxEvents: numberSetting(envNames.cohortMaxEvents, defaultCohortMaxEvents),
      maxCohorts: 20,
      concurrency: 2,
      deadline: Date.now() + remaining - marginMs,
      // A run never outlives its invocation: after that, a claim that was not released is stale.
      leaseMs: remaining + 60_000,
    });
    countMetric(metricNames.cohortsCalculated, outcomes.filter((outcome) => outcome.result).length);
    countMetric(metricNames.cohortCalculationFailures, outcomes.filter((outcome) => outcome.error).length);
    return outcomes;
  },
);
