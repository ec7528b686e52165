/** What the sequencer reads of a test file (jest's `Test`). */
interface Test {
  readonly path: string;
  readonly context: unknown;
}

// The suite's own sequencer (jest.config.js), plain JavaScript as jest loads it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ProjectAwareSequencer = require('../helpers/test-sequencer') as new () => {
  sort(tests: Test[]): Test[];
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
});
