import { ingestEventSource } from '../../../bin/local/poller';
import { consumerEventSource } from '../../../functions/shared/queue/definitions';

describe("the local server's ingest event source", () => {
  it("is the stack's unless a test shortens its batching window (--ingest-batching-window)", () => {
    // Act
    const deployed = ingestEventSource();
    const shortened = ingestEventSource(0.5);

    // Assess: the stack's own settings (test/cdk/stateless-stack.test.ts asserts it deploys these)
    expect(deployed).toEqual({
      batchSize: consumerEventSource.batchSize,
      maxBatchingWindowSeconds: consumerEventSource.maxBatchingWindowSeconds,
    });
    expect(deployed.maxBatchingWindowSeconds).toBe(2);
    expect(shortened).toEqual({ batchSize: consumerEventSource.batchSize, maxBatchingWindowSeconds: 0.5 });
  });
});
