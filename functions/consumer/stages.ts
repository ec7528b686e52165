import { logger } from '../shared/logger';
import { countStageFailure, recordStageDuration } from '../shared/metrics';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages, mergeFailures } from '../shared/stage-failures';

/** Anything a stage takes: one SQS message's worth of work, known by the message's id. */
export interface Tagged {
  readonly messageId: string;
}

/** What a transforming stage hands on, and the messages it could not handle (each with its error). */
export interface Handed<Out extends Tagged> {
  readonly handOn: readonly Out[];
  readonly failed?: ReadonlyMap<string, Error>;
}

/** Stages running in this container now (name → start times, ms): what a deadline report names. */
const running = new Map<string, number[]>();

/** Times `run` as a running stage of this container for `stagesRunning`. */
async function tracked<T>(name: string, run: () => Promise<T>): Promise<T> {
  const startedAt = performance.now();
  const starts = running.get(name) ?? [];
  starts.push(startedAt);
  running.set(name, starts);
  try {
    return await run();
  } finally {
    starts.splice(starts.indexOf(startedAt), 1);
    if (starts.length === 0) running.delete(name);
  }
}

/**
 * The stages running now in this container (Lambda runs one invocation at a time per container), the
 * longest-running first, each with how long it has run: what was holding an invocation when its
 * deadline came (deadline-watch.ts).
 */
export function stagesRunning(): { readonly stage: string; readonly runningMs: number }[] {
  const now = performance.now();
  return [...running]
    .map(([stage, starts]) => ({ stage, runningMs: Math.round(now - Math.min(...starts)) }))
    .sort((a, b) => b.runningMs - a.runningMs);
}

/**
 * The consumer's stages over one batch, in order (docs/consumer.md). Each stage takes the messages
 * every earlier stage handled (the survivors) once, and its duration goes to the
 * ConsumerStageDuration metric under its name. A stage left with no message does not run.
 *
 * - required: a message the stage fails, or every message it was given if it throws, is failed and
 *   goes no further (SQS delivers it again; every stage is replayable).
 * - best effort: a failure is logged and counted (ConsumerStageFailures) and the messages go on:
 *   for state that is only an aid (samples, registries, onboarding flags) and is tried again with
 *   the next batch.
 */
export class Stages {
  /** Every message failed so far, with the first error that stopped it. */
  readonly failed: StageFailures = new Map();

  /** The messages of `messages` no stage has failed. */
  survivors<T extends Tagged>(messages: readonly T[]): T[] {
    return messages.filter((message) => !this.failed.has(message.messageId));
  }

  /** A required stage that hands on what it was given; returns the survivors after it. */
  async required<T extends Tagged>(
    name: string,
    messages: readonly T[],
    run: (survivors: readonly T[]) => Promise<ReadonlyMap<string, Error> | void>,
  ): Promise<T[]> {
    const survivors = this.survivors(messages);
    await this.transform(name, survivors, async (taken) => ({
      handOn: taken,
      failed: (await run(taken)) ?? undefined,
    }));
    return this.survivors(survivors);
  }

  /** A required stage that turns each survivor into what the next stage takes. */
  async transform<In extends Tagged, Out extends Tagged>(
    name: string,
    messages: readonly In[],
    run: (survivors: readonly In[]) => Promise<Handed<Out>>,
  ): Promise<Out[]> {
    const survivors = this.survivors(messages);
    if (survivors.length === 0) return [];
    const startedAt = performance.now();
    try {
      const { handOn, failed } = await tracked(name, () => run(survivors));
      if (failed) mergeFailures(this.failed, failed);
      return this.survivors(handOn);
    } catch (error) {
      logger.error(`The ${name} stage failed`, { count: survivors.length, reason: String(error) });
      failMessages(
        this.failed,
        survivors.map((message) => message.messageId),
        error,
      );
      return [];
    } finally {
      recordStageDuration(name, performance.now() - startedAt);
    }
  }

  /** A best-effort stage: a failure is logged and counted, and every survivor goes on. */
  async bestEffort<T extends Tagged>(
    name: string,
    messages: readonly T[],
    run: (survivors: readonly T[]) => Promise<unknown>,
  ): Promise<T[]> {
    const survivors = this.survivors(messages);
    if (survivors.length === 0) return [];
    const startedAt = performance.now();
    try {
      await tracked(name, () => run(survivors));
    } catch (error) {
      logger.warn(`The best-effort ${name} stage failed`, { count: survivors.length, reason: String(error) });
      countStageFailure(name);
    } finally {
      recordStageDuration(name, performance.now() - startedAt);
    }
    return survivors;
  }
}
