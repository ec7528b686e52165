import { createHash } from 'node:crypto';
import type { BuiltInPlugin, PluginEvent, PluginMeta } from './types';

/**
 * PostHog's Downsampling plugin (downsampling-plugin): keeps a percentage of events, by default all
 * or none of each person's ("Distinct ID aware sampling").
 */

export interface DownsamplingState {
  readonly percentage: number;
  readonly randomSampling: boolean;
}

const RANDOM_SAMPLING = 'Random sampling';

/**
 * Where a text falls in [0, 1]: its SHA-256 in hex, the first 15 digits read as an integer, divided
 * by the largest 15-digit hex number. A value at or under `percentage / 100` is kept, so raising the
 * percentage never drops a distinct id that was kept before.
 */
export function samplingPoint(text: string): number {
  const hash = createHash('sha256').update(text).digest('hex');
  // PostHog divides by 0xfffffffffffffff, which as a double is exactly 2^60.
  return parseInt(hash.substring(0, 15), 16) / 2 ** 60;
}

function setup(config: Readonly<Record<string, string>>): DownsamplingState {
  // parseFloat of a missing value is NaN, so an unset percentage fails setup as in PostHog.
  const percentage = parseFloat(config['percentage'] as string);
  if (isNaN(percentage) || percentage > 100 || percentage < 0) {
    throw new Error('Percentage must be a number between 0 and 100.');
  }
  return { percentage, randomSampling: config['samplingMethod'] === RANDOM_SAMPLING };
}

function processEvent(event: PluginEvent, meta: PluginMeta<DownsamplingState>): PluginEvent | null {
  const { percentage, randomSampling } = meta.state;
  // PostHog draws Math.random() in random mode; Flock draws the same uniform number from the event's
  // uuid instead, so a redelivered event gets the decision it got the first time.
  const keep = randomSampling
    ? Math.trunc(samplingPoint(event.uuid) * 100) <= percentage
    : samplingPoint(event.distinct_id) <= percentage / 100;
  return keep ? event : null;
}

export const downsamplingPlugin: BuiltInPlugin<DownsamplingState> = {
  id: 3,
  name: 'Downsampling Plugin',
  description: 'Reduces event volume coming into PostHog',
  url: 'https://github.com/posthog/downsampling-plugin',
  config_schema: [
    {
      key: 'percentage',
      hint: 'Reduces events flowing in to the percentage value above',
      name: '% of events to keep',
      type: 'string',
      default: '100',
      required: false,
    },
    {
      key: 'samplingMethod',
      hint: "`Distinct ID aware sampling` will sample based on distinct IDs, meaning that a user's events will all be ingested or all be dropped at a given sample percentage.",
      name: 'Sampling method',
      type: 'choice',
      choices: ['Random sampling', 'Distinct ID aware sampling'],
      default: 'Distinct ID aware sampling',
      required: false,
    },
  ],
  capabilities: { jobs: [], methods: ['setupPlugin', 'processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup,
  processEvent,
};
