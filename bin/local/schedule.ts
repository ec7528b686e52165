import type { LocalFunction } from './function-host';

/**
 * Plays an EventBridge schedule rule for a local function: invokes it with a scheduled event every
 * `intervalMs`, never two runs at once (a run that takes longer delays the next one). The cohort
 * calculation runs this way under `npm start`.
 */
export class LocalSchedule {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly fn: LocalFunction,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.fn
        .invoke({
          version: '0',
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          time: new Date().toISOString(),
          detail: {},
        })
        .then(
          () => undefined,
          (error: unknown) => {
            if (!this.stopped) this.onError(error);
          },
        )
        .finally(() => this.schedule());
    }, this.intervalMs);
  }

  /** No new runs; waits for the one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
