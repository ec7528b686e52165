import type { CpuProfile, FrameTimes } from '../../../bench/support/top-frames';
import { addProfile, ranked } from '../../../bench/support/top-frames';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

describe('top frames of a CPU profile', () => {
  it('counts self time in the sampled frame and inclusive time once per frame on the stack', () => {
    // Prepare: root → handler → stringify, handler → handler (recursion).
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2] },
        {
          id: 2,
          callFrame: frame('handler', 'file:///repo/functions/consumer/handler.ts'),
          children: [3, 4],
        },
        { id: 3, callFrame: frame('stringify', 'file:///repo/node_modules/pkg/index.js') },
        { id: 4, callFrame: frame('handler', 'file:///repo/functions/consumer/handler.ts') },
      ],
      samples: [3, 3, 4, 2],
      timeDeltas: [10, 10, 30, 50],
    };
    const times: FrameTimes = { self: new Map(), inclusive: new Map(), inclusivePlaces: new Map(), total: 0 };

    // Act
    addProfile(profile, times, '/repo');

    // Assert
    expect(times.total).toBe(100);
    expect(times.self.get('stringify pkg:index.js:1')).toBe(20);
    expect(times.self.get('handler functions/consumer/handler.ts')).toBe(80);
    expect(times.inclusive.get('handler functions/consumer/handler.ts')).toBe(100);
    expect(times.inclusivePlaces.get('pkg')).toBe(20);
    expect(times.inclusivePlaces.get('functions/consumer')).toBe(100);
    expect(ranked(times.self, times.total, 1)).toEqual([' 80.0%  handler functions/consumer/handler.ts']);
  });
});
