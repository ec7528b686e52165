import { metricNames, projectDimension } from '../../functions/shared/metrics';

/**
 * Events the consumer stored, from the `EventsStored` and `EventsAlreadyStored` metrics it writes once
 * per batch (the line without a project dimension; the per-project lines repeat the same events).
 * Already stored counts too: a batch that stored events and then failed or timed out reports
 * nothing, and its redelivery finds them stored (a bench's events all have uuids of their own, so
 * only such a redelivery finds one). A bench learns that
 * its events are all stored when the batch that stores the last of them ends, without asking the
 * queue over and over. Each SQS call is a request the emulators' thread (the pipeline's bottleneck)
 * serves: polling every 20 ms took about 0.04 requests per event from the pipeline's share of it.
 */
export class StoredEvents {
  private stored = 0;
  private waiting?: { readonly count: number; readonly resolve: () => void };

  /** One EMF blob a function wrote; anything but the consumer's stored count is ignored. */
  record(blob: Record<string, unknown>): void {
    if (blob[projectDimension] !== undefined) return;
    for (const name of [metricNames.eventsStored, metricNames.eventsAlreadyStored]) {
      const count = blob[name];
      if (typeof count === 'number') this.stored += count;
    }
    if (this.waiting && this.stored >= this.waiting.count) this.waiting.resolve();
  }

  /** Forgets what was recorded (a bench's warm-up). */
  reset(): void {
    this.stored = 0;
  }

  /** Events stored since the last reset. */
  get count(): number {
    return this.stored;
  }

  /** Whether `count` events were stored since the last reset before `timeoutMs` passed. */
  async waitFor(count: number, timeoutMs: number): Promise<boolean> {
    if (this.stored >= count) return true;
    let timer: NodeJS.Timeout | undefined;
    const reached = await new Promise<boolean>((resolve) => {
      this.waiting = { count, resolve: () => resolve(true) };
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    clearTimeout(timer);
    this.waiting = undefined;
    return reached;
  }
}
