import { metricNames, stageDimension } from '../../functions/shared/metrics';

/**
 * Where the consumer's time went: the `ConsumerStageDuration{stage}` metrics it writes (one EMF line
 * per stage and batch, see functions/consumer/stages.ts), added up per stage. Stages that run at the
 * same time (persons and already-stored; the aids and hand-offs after definitions) overlap, so the
 * per-stage figures do not add up to the batches' wall time.
 */
export class StageDurations {
  private readonly totals = new Map<string, { ms: number; batches: number }>();

  /** One EMF blob a function wrote; anything but a stage duration is ignored. */
  record(blob: Record<string, unknown>): void {
    const stage = blob[stageDimension];
    const ms = blob[metricNames.consumerStageDuration];
    if (typeof stage !== 'string' || typeof ms !== 'number') return;
    const total = this.totals.get(stage) ?? { ms: 0, batches: 0 };
    total.ms += ms;
    total.batches++;
    this.totals.set(stage, total);
  }

  /** Forgets what was recorded (a bench's warm-up). */
  reset(): void {
    this.totals.clear();
  }

  /** The consumer's batches: every batch runs the first stage. */
  get batches(): number {
    return Math.max(0, ...[...this.totals.values()].map((total) => total.batches));
  }

  /** Milliseconds per event each stage took, summed over the batches, in the order the stages first ran. */
  perEvent(events: number): Record<string, number> {
    return Object.fromEntries([...this.totals].map(([stage, { ms }]) => [stage, ms / events]));
  }
}
