import type { LakeEvent } from '../../../functions/shared/lake/row';
import { packLakeMessages } from '../../../functions/shared/queue/lake-message';

const event = (uuid: string, overrides: Partial<LakeEvent> = {}): LakeEvent => ({
  uuid,
  event: '$pageview',
  distinct_id: 'user "one"',
  timestamp: '2026-11-28T02:00:00.000Z',
  created_at: '2026-11-28T02:00:01.000Z',
  properties: {
    $current_url: 'https://example.com/?a=1&b="2"',
    n: 1.5,
    list: [1, 'two'],
    nested: { x: null },
  },
  elements_chain: 'a.nav:text="Home"',
  person_id: '0190d3b7-0000-7000-8000-000000000001',
  person_properties: { email: 'ann@example.com' },
  ...overrides,
});

/** Events of every shape the hand-off writes, and text SQS would refuse as it is. */
const shapes: LakeEvent[] = [
  event('plain'),
  event('no person', { person_id: null, person_properties: null }),
  event('no person fields', { person_id: undefined, person_properties: undefined }),
  event('emoji and noncharacters', {
    properties: { text: 'ok 🎉 \ufffe \uffff \ud800 end', ключ: 'значение' },
  }),
  event('control', { event: 'tab\there', distinct_id: 'line\nbreak', elements_chain: '' }),
  // One message cannot hold this with its person's properties: it goes without them.
  event('large person', {
    properties: { big: 'e'.repeat(150 * 1024) },
    person_properties: { bio: 'p'.repeat(150 * 1024) },
  }),
];

describe('lake bodies written from the properties’ JSON given', () => {
  it('are the very bodies packLakeMessages writes itself, in one message or event by event', () => {
    for (const events of [shapes.slice(0, 5), shapes]) {
      const own = packLakeMessages(3, 'source-1', events);
      const given = packLakeMessages(3, 'source-1', events, (properties) => JSON.stringify(properties));
      expect(given).toEqual(own);
    }
  });
});
