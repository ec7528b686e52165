import { groupIntoBatches, EventTooLargeError, packMessages } from '../../../../functions/shared/queue/pack';
import type { CapturedEvent } from '../../../../functions/shared/queue/message';
import { captureMessageSchema } from '../../../../functions/shared/queue/message';

const envelope = {
  v: 1 as const,
  project_id: 7,
  now: '2026-11-21T10:00:00.000Z',
  sent_at: null,
  ip: '1.2.3.4',
  site_url: null,
};

const event = (i: number, padding = 0): CapturedEvent => ({
  uuid: `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`,
  distinct_id: `user-${i}`,
  data: { event: 'e', properties: { pad: 'x'.repeat(padding) } },
});

describe('packMessages', () => {
  it('packs a whole /batch/ into one message when it fits, keeping the order', () => {
    const events = Array.from({ length: 50 }, (_, i) => event(i, 900));
    const bodies = packMessages(envelope, events);
    expect(bodies).toHaveLength(1);
    const message = captureMessageSchema.parse(JSON.parse(bodies[0]!));
    expect(message.events.map((e) => e.uuid)).toEqual(events.map((e) => e.uuid));
    expect(message.project_id).toBe(7);
  });

  it('starts a new message when the next event would exceed the size limit', () => {
    const events = Array.from({ length: 10 }, (_, i) => event(i, 300));
    const bodies = packMessages(envelope, events, 1500);
    expect(bodies.length).toBeGreaterThan(1);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1500);
    const uuids = bodies.flatMap((body) =>
      captureMessageSchema.parse(JSON.parse(body)).events.map((e) => e.uuid),
    );
    expect(uuids).toEqual(events.map((e) => e.uuid));
  });

  it('sends an event larger than the limit alone', () => {
    const bodies = packMessages(envelope, [event(1, 10), event(2, 5000), event(3, 10)], 2000);
    expect(bodies.map((body) => captureMessageSchema.parse(JSON.parse(body)).events.length)).toEqual([
      1, 1, 1,
    ]);
  });

  it('escapes what SQS refuses in a body, noncharacters and characters beyond the BMP, keeping the JSON', () => {
    // Prepare: SQS allows #x9 #xA #xD #x20–#xD7FF #xE000–#xFFFD (and, on AWS only, #x10000–#x10FFFF).
    const odd: CapturedEvent = {
      ...event(1),
      distinct_id: 'ñ😀',
      data: { event: '🚀 launch', properties: { text: 'a\uffffb\ufffe', lone: '\ud800', nul: '\u0000' } },
    };
    const allowedByEverySqs = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd]*$/;

    // Act
    const [body] = packMessages(envelope, [odd]);

    // Assess
    expect(body).toMatch(allowedByEverySqs);
    expect(captureMessageSchema.parse(JSON.parse(body!)).events).toEqual([odd]);
  });

  it('refuses an event that no SQS message could hold', () => {
    expect(() => packMessages(envelope, [event(1, 1024 * 1024)])).toThrow(EventTooLargeError);
  });
});

describe('groupIntoBatches', () => {
  it('puts at most 10 messages in one SendMessageBatch call', () => {
    const batches = groupIntoBatches(Array.from({ length: 23 }, () => 'x'));
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 3]);
  });

  it('keeps a call under 1 MiB in total', () => {
    const body = 'x'.repeat(300 * 1024);
    const batches = groupIntoBatches([body, body, body, body, body]);
    expect(batches.map((batch) => batch.length)).toEqual([3, 2]);
  });
});
