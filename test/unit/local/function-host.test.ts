import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { LocalFunction } from '../../../bin/local/function-host';
import type { FixtureEvent } from '../../fixtures/local-function';

interface Echo {
  threadId: number;
  invocations: number;
  functionName: string;
  remainingMs: number;
}

const modulePath = join(__dirname, '../../fixtures/local-function.ts');

describe('LocalFunction: a function in local containers (worker threads)', () => {
  let fn: LocalFunction;

  afterEach(async () => {
    await fn.stop();
  });

  it('runs the handler in its own thread, keeping module state between invocations', async () => {
    // Prepare
    fn = new LocalFunction({ functionName: 'flock-test', modulePath, timeoutMs: 5_000 });

    // Act
    const first = await fn.invoke<Echo>({ action: 'echo' } satisfies FixtureEvent);
    const second = await fn.invoke<Echo>({ action: 'echo' } satisfies FixtureEvent);

    // Assess
    expect(first.threadId).not.toBe(threadId);
    expect(second.threadId).toBe(first.threadId);
    expect([first.invocations, second.invocations]).toEqual([1, 2]);
    expect(first.functionName).toBe('flock-test');
    expect(first.remainingMs).toBeGreaterThan(0);
    expect(first.remainingMs).toBeLessThanOrEqual(5_000);
  });

  it('rejects with the error the handler threw', async () => {
    // Prepare
    fn = new LocalFunction({ functionName: 'flock-test', modulePath, timeoutMs: 5_000 });

    // Act
    const result = fn.invoke({ action: 'fail' } satisfies FixtureEvent);

    // Assess
    await expect(result).rejects.toMatchObject({ name: 'TypeError', message: 'the handler failed' });
  });

  it('fails an invocation that outlives the timeout', async () => {
    // Prepare
    fn = new LocalFunction({ functionName: 'flock-test', modulePath, timeoutMs: 200 });

    // Act
    const result = fn.invoke({ action: 'sleep', ms: 2_000 } satisfies FixtureEvent);

    // Assess
    await expect(result).rejects.toThrow('flock-test: task timed out after 0.2 seconds');
  });

  it('counts the timeout from when the container has loaded its handler, not from the cold start', async () => {
    // Prepare: loading the module takes 1.5 s, three times the timeout.
    fn = new LocalFunction({
      functionName: 'flock-test',
      modulePath: join(__dirname, '../../fixtures/slow-init-function.ts'),
      timeoutMs: 500,
    });

    // Act
    const result = await fn.invoke<string>({});

    // Assess
    expect(result).toBe('served');
  });

  it('replaces a container whose invocation timed out, as Lambda resets the sandbox', async () => {
    // Prepare
    fn = new LocalFunction({ functionName: 'flock-test', modulePath, timeoutMs: 2_000 });
    const before = await fn.invoke<Echo>({ action: 'echo' } satisfies FixtureEvent);

    // Act
    const spinning = fn.invoke({ action: 'spin' } satisfies FixtureEvent);
    await expect(spinning).rejects.toThrow('flock-test: task timed out after 2 seconds');
    const after = await fn.invoke<Echo>({ action: 'echo' } satisfies FixtureEvent);

    // Assess
    expect(after.threadId).not.toBe(before.threadId);
    expect(after.invocations).toBe(1);
  });

  it('fails the invocations of a container that crashed and starts a fresh one', async () => {
    // Prepare
    fn = new LocalFunction({ functionName: 'flock-test', modulePath, timeoutMs: 5_000 });
    const before = await fn.invoke<Echo>({ action: 'echo' } satisfies FixtureEvent);

    // Act
    const crashed = fn.invoke({ action: 'crash' } satisfies FixtureEvent);
    await expect(crashed).rejects.toThrow('flock-test: container exited with code 3');
    const after = await fn.invoke<Echo>({ action: 'echo' } satisfies FixtureEvent);

    // Assess
    expect(after.threadId).not.toBe(before.threadId);
    expect(after.invocations).toBe(1);
  });

  it('starts another container only while every container is busy, up to the maximum', async () => {
    // Prepare
    fn = new LocalFunction({ functionName: 'flock-test', modulePath, timeoutMs: 5_000, maxContainers: 2 });
    const sleep = { action: 'sleep', ms: 300 } satisfies FixtureEvent;

    // Act
    const concurrent = await Promise.all([
      fn.invoke<Echo>(sleep),
      fn.invoke<Echo>(sleep),
      fn.invoke<Echo>(sleep),
    ]);
    const later = await fn.invoke<Echo>({ action: 'echo' } satisfies FixtureEvent);

    // Assess
    const threads = new Set(concurrent.map((echo) => echo.threadId));
    expect(threads.size).toBe(2);
    expect(threads.has(later.threadId)).toBe(true);
  });

  it('wraps the handler with what a preload module exports as wrapHandler', async () => {
    // Prepare
    fn = new LocalFunction({
      functionName: 'flock-test',
      modulePath,
      timeoutMs: 5_000,
      preload: [join(__dirname, '../../fixtures/local-function-wrapper.ts')],
    });

    // Act
    const result = await fn.invoke<{ wrappedFor: string; inner: Echo }>({
      action: 'echo',
    } satisfies FixtureEvent);

    // Assess
    expect(result.wrappedFor).toBe('flock-test');
    expect(result.inner.invocations).toBe(1);
  });
});
