/** What the sequencer reads of a test file (jest's `Test`). */
interface Test {
  readonly path: string;
  readonly context: unknown;
}

import { join } from 'node:path';

// The suite's own sequencer (jest.config.js), plain JavaScript as jest loads it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ProjectAwareSequencer = require('../helpers/test-sequencer') as new () => {
  sort(tests: Test[]): Test[];
  time(test: Test): number;
};

/** A test file of `project` of `size` bytes, of which jest keeps no timing (a fresh clone). */
const file = (project: string, path: string, size: number): Test => ({
  path,
  context: {
    config: { cache: false, id: project, displayName: { name: project } },
    hasteFS: { getSize: () => size },
  },
});

describe('the order of the test files on a fresh clone', () => {
  it('starts the integration files first, then the CDK files, then the unit files by size', () => {
    // Prepare: large unit and CDK files, a small integration file, no timings.
    const files = [
      file('unit', 'unit/small.test.ts', 2_000),
      file('cdk', 'cdk/stack.test.ts', 30_000),
      file('unit', 'unit/large.test.ts', 40_000),
      file('integration', 'integration/small.test.ts', 1_000),
    ];

    // Act
    const order = new ProjectAwareSequencer().sort(files).map((test) => test.path);

    // Assess
    expect(order).toEqual([
      'integration/small.test.ts',
      'cdk/stack.test.ts',
      'unit/large.test.ts',
      'unit/small.test.ts',
    ]);
  });

  it('expects an integration file with a server of its own to take longer than one that shares one', () => {
    // Prepare: real files (the sequencer reads them), of the same size.
    const sequencer = new ProjectAwareSequencer();
    const shared = file('integration', join(__dirname, 'pipeline.test.ts'), 20_000);
    const own = file('integration', join(__dirname, 's3-export-hanging.test.ts'), 20_000);

    // Act
    const [sharedMs, ownMs] = [sequencer.time(shared), sequencer.time(own)];

    // Assess: the longer first, as jest sorts by these.
    expect(ownMs).toBeGreaterThan(sharedMs);
    expect(sequencer.sort([shared, own]).map((test) => test.path)).toEqual([own.path, shared.path]);
    expect(sequencer.sort([own, shared]).map((test) => test.path)).toEqual([own.path, shared.path]);
  });
});
