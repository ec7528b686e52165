import * as zlib from 'node:zlib';
type Zlib = typeof zlib;
import type { CountedZlib } from '../../helpers/counted-zlib';
import { itemsOfBatch } from '../../../functions/consumer/store';
import type { MessageEvents } from '../../../functions/consumer/types';
import { entriesOfPage } from '../../../functions/shared/db/event-index';
import type { IndexPageItem } from '../../../functions/shared/db/event-index';
import { toEventItem } from '../../../functions/shared/db/events';
import type { StoredEvent } from '../../../functions/shared/domain/event';

// Counted, not replaced: every call still reaches Node's zlib.
jest.mock('node:zlib', () => jest.requireActual<CountedZlib>('../../helpers/counted-zlib').countedZlib());
const { deflateRawSync } = jest.requireActual<Zlib>('node:zlib');

const uuid = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

function event(n: number, distinctId: string): StoredEvent {
  return {
    uuid: uuid(n),
    projectId: 7,
    event: n % 3 === 0 ? '$pageview' : `event ${n % 4}`,
    distinctId,
    properties: { $current_url: `https://example.com/${n}`, plan: n % 2 ? 'pro' : 'free' },
    timestamp: new Date(Date.UTC(2026, 10, 28, 10, n % 3, n % 60)).toISOString(),
    elementsChain: '',
    createdAt: '2026-11-28T10:05:00.000Z',
  };
}

/** Three messages of 300 events each, their users shared, one uuid sent again by the last message. */
function batch(): MessageEvents[] {
  const messages = ['m1', 'm2', 'm3'].map((messageId, m) => ({
    messageId,
    projectId: 7,
    events: Array.from({ length: 300 }, (_, i) => event(m * 300 + i, `user-${i % 10}`)),
  }));
  messages[2]!.events = [...messages[2]!.events, event(5, 'user-5')];
  return messages;
}

const isPage = (item: Record<string, unknown>): boolean => String(item.PK).startsWith('I#');

beforeEach(() => jest.clearAllMocks());

describe('itemsOfBatch', () => {
  it('tags each index page with exactly the messages whose events it lists, and each event item with its own', () => {
    // Act
    const messages = batch();
    const puts = itemsOfBatch(messages, 'owner-1', new Map([['m1', 'src-1']]));

    // Assess: a uuid sent twice is stored once, by the last message to carry it.
    const messageOf = new Map<string, string>();
    for (const message of messages)
      for (const one of message.events) messageOf.set(one.uuid, message.messageId);
    const events = puts.filter((put) => !isPage(put.item));
    expect(events).toHaveLength(900);
    for (const put of events) {
      const id = String(put.item.uuid);
      expect(put.tag).toBe(messageOf.get(id));
      const stored = messages
        .find((message) => message.messageId === put.tag)!
        .events.find((e) => e.uuid === id)!;
      expect(put.item).toEqual(toEventItem(stored, 'owner-1', put.tag === 'm1' ? 'src-1' : undefined));
    }
    const pages = puts.filter((put) => isPage(put.item));
    expect(pages.length).toBeGreaterThan(0);
    for (const put of pages) {
      const listed = entriesOfPage(put.item as IndexPageItem).map((entry) => messageOf.get(entry.uuid));
      expect([...(put.tag as string[])].sort()).toEqual([...new Set(listed)].sort());
    }
  });

  it('deflates large index pages byte for byte as deflateRawSync, through one zlib stream, not one per page', () => {
    // Act
    const puts = itemsOfBatch(batch(), 'owner-2');

    // Assess
    const deflated = puts.map((put) => put.item as IndexPageItem).filter((item) => item.ez !== undefined);
    expect(deflated.length).toBeGreaterThan(2);
    for (const page of deflated) {
      const text = entriesOfPage(page)
        .map((entry) => `${entry.timestamp} ${entry.uuid}`)
        .join('\n');
      expect(Buffer.from(page.ez!).equals(deflateRawSync(text))).toBe(true);
    }
    expect(zlib.deflateRawSync).not.toHaveBeenCalled();
    // At most one stream for the pages and one for the properties' dictionary deflate.
    expect((zlib.createDeflateRaw as jest.Mock).mock.calls.length).toBeLessThanOrEqual(2);
  });
});
