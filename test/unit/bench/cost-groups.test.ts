import type { CostGroup } from '../../../bench/support/cost-groups';
import { addCostGroups } from '../../../bench/support/cost-groups';
import type { CpuProfile } from '../../../bench/support/top-frames';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

describe('cost groups of a CPU profile', () => {
  it('counts each sample under the group of the nearest frame that has one, from the sampled frame up', () => {
    // Prepare: root → store → deflate → zlib's native call; store → the SDK → a socket write.
    const groups: CostGroup[] = [
      { name: 'deflate', frames: /dictionary-deflate/ },
      { name: 'http', frames: /^writev / },
      { name: 'sdk', frames: /@smithy/ },
      { name: 'store', frames: /consumer\/store/ },
    ];
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2] },
        {
          id: 2,
          callFrame: frame('storeEvents', 'file:///repo/functions/consumer/store.ts'),
          children: [3, 5],
        },
        {
          id: 3,
          callFrame: frame('deflate', 'file:///repo/functions/shared/db/dictionary-deflate.ts'),
          children: [4],
        },
        { id: 4, callFrame: frame('processChunkSync', 'node:zlib') },
        { id: 5, callFrame: frame('send', 'file:///repo/node_modules/@smithy/core/index.js'), children: [6] },
        { id: 6, callFrame: frame('writev', '') },
      ],
      samples: [4, 3, 6, 5, 2, 1],
      timeDeltas: [10, 5, 20, 7, 3, 1],
    };
    const times = new Map<string, number>();

    // Act
    addCostGroups(profile, groups, times);

    // Assert
    expect(Object.fromEntries(times)).toEqual({ deflate: 15, http: 20, sdk: 7, store: 3, other: 1 });
  });
});
