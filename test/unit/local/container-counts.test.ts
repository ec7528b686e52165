import { consumerContainers, httpContainersPerFunction } from '../../../bin/local/server';
import { consumerEventSource } from '../../../functions/shared/queue/definitions';

describe("the local server's containers per function", () => {
  it('gives an HTTP function one container per core, at least one and at most four', () => {
    // Act
    const byCores = [0, 1, 2, 3, 4, 8, 64].map((cores) => httpContainersPerFunction(cores));

    // Assess: on a two-core machine two, not four (each container compiles and collects on its own)
    expect(byCores).toEqual([1, 1, 2, 3, 4, 4, 4]);
  });

  it('gives the consumer one container per core, at most its event source concurrency', () => {
    // Act & Assess
    expect(consumerContainers(2)).toBe(2);
    expect(consumerContainers(1000)).toBe(consumerEventSource.maxConcurrency);
  });
});
