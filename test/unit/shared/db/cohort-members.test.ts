import type { ShardMembership } from '../../../../functions/shared/db/cohort-members';
import { membersOf, shardWrites } from '../../../../functions/shared/db/cohort-members';

/** What a calculation writes to bring one shard's stored membership to its matched members. */
describe('shardWrites', () => {
  const partition = 'COHORTMEM#1#2#0';
  // Three members of one shard (same last character), two sharing their page (first two characters).
  const a1 = 'aa000000-0000-4000-8000-000000000000';
  const a2 = 'aa111111-0000-4000-8000-000000000000';
  const b1 = 'bb000000-0000-4000-8000-000000000000';
  const stored = (pages: Record<string, string[]>, items: string[] = []): ShardMembership => ({
    pages: new Map(Object.entries(pages).map(([sortKey, members]) => [sortKey, new Set(members)])),
    items: new Set(items),
  });

  it('writes nothing when the members are those stored', () => {
    const writes = shardWrites(partition, stored({ '#aa': [a2, a1], '#bb': [b1] }), new Set([a1, a2, b1]));

    expect(writes).toEqual({ puts: [], deletes: [] });
  });

  it('puts only the page of a member who joined, whole', () => {
    const writes = shardWrites(partition, stored({ '#aa': [a1], '#bb': [b1] }), new Set([a1, a2, b1]));

    expect(writes).toEqual({ puts: [{ PK: partition, SK: '#aa', members: new Set([a1, a2]) }], deletes: [] });
  });

  it('deletes a page left with no member, and puts a page left with fewer', () => {
    const writes = shardWrites(partition, stored({ '#aa': [a1, a2], '#bb': [b1] }), new Set([a1]));

    expect(writes).toEqual({
      puts: [{ PK: partition, SK: '#aa', members: new Set([a1]) }],
      deletes: [{ PK: partition, SK: '#bb' }],
    });
  });

  it('moves members stored one item each into pages and deletes every member item', () => {
    const before = stored({}, [a1, b1]);
    const writes = shardWrites(partition, before, new Set([a1, a2]));

    expect(writes).toEqual({
      puts: [{ PK: partition, SK: '#aa', members: new Set([a1, a2]) }],
      deletes: [
        { PK: partition, SK: a1 },
        { PK: partition, SK: b1 },
      ],
    });
    expect(membersOf(before)).toEqual(new Set([a1, b1]));
  });

  it('counts a member held by a page and an item once', () => {
    expect(membersOf(stored({ '#aa': [a1, a2] }, [a1]))).toEqual(new Set([a1, a2]));
  });
});
