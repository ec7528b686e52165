import { groupIntoBatches, packMessages } from '../../../../functions/shared/queue/pack';
import { captureLimits } from '../../../../functions/shared/queue/definitions';
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
    const { bodies, tooLarge } = packMessages(envelope, events);
    expect(bodies).toHaveLength(1);
    expect(tooLarge).toEqual([]);
    const message = captureMessageSchema.parse(JSON.parse(bodies[0]!));
    expect(message.events.map((e) => e.uuid)).toEqual(events.map((e) => e.uuid));
    expect(message.project_id).toBe(7);
  });

  it('starts a new message when the next event would exceed the size limit', () => {
    const events = Array.from({ length: 10 }, (_, i) => event(i, 300));
    const { bodies } = packMessages(envelope, events, 1500);
    expect(bodies.length).toBeGreaterThan(1);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1500);
    const uuids = bodies.flatMap((body) =>
      captureMessageSchema.parse(JSON.parse(body)).events.map((e) => e.uuid),
    );
    expect(uuids).toEqual(events.map((e) => e.uuid));
  });

  it('leaves out an event that no message could hold, and packs the others around it in order', () => {
    // Act
    const { bodies, tooLarge } = packMessages(envelope, [event(1, 10), event(2, 5000), event(3, 10)], 2000);

    // Assess
    expect(tooLarge.map(({ event: dropped }) => dropped.uuid)).toEqual([event(2).uuid]);
    expect(tooLarge[0]!.bytes).toBeGreaterThan(5000);
    const uuids = bodies.flatMap((body) =>
      captureMessageSchema.parse(JSON.parse(body)).events.map((e) => e.uuid),
    );
    expect(uuids).toEqual([event(1).uuid, event(3).uuid]);
  });

  it('leaves out an event over the per-event cap even when the message limit could hold it', () => {
    const { bodies, tooLarge } = packMessages(envelope, [event(1, captureLimits.maxEventBytes)], 1024 * 1024);
    expect(bodies).toEqual([]);
    expect(tooLarge).toHaveLength(1);
  });

  it('puts at most maxEventsPerMessage events in one message', () => {
    const events = Array.from({ length: captureLimits.maxEventsPerMessage * 2 + 1 }, (_, i) => event(i));
    const { bodies } = packMessages(envelope, events);
    expect(bodies.map((body) => captureMessageSchema.parse(JSON.parse(body)).events.length)).toEqual([
      captureLimits.maxEventsPerMessage,
      captureLimits.maxEventsPerMessage,
      1,
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
    const {
      bodies: [body],
    } = packMessages(envelope, [odd]);

    // Assess
    expect(body).toMatch(allowedByEverySqs);
    expect(captureMessageSchema.parse(JSON.parse(body!)).events).toEqual([odd]);
  });
});

describe('packMessages: one message written at once', () => {
  const uuidsOf = (bodies: readonly string[]): string[] =>
    bodies.flatMap((body) => captureMessageSchema.parse(JSON.parse(body)).events.map((e) => e.uuid));

  afterEach(() => jest.restoreAllMocks());

  it('writes a request that fits one message with a single JSON.stringify of its events', () => {
    // Prepare
    const events = Array.from({ length: captureLimits.maxEventsPerMessage }, (_, i) => event(i, 900));
    const stringify = jest.spyOn(JSON, 'stringify');

    // Act
    const { bodies } = packMessages(envelope, events);

    // Assess: the envelope once, the events once (not once per event)
    expect(stringify).toHaveBeenCalledTimes(2);
    expect(uuidsOf(bodies)).toEqual(events.map((e) => e.uuid));
  });

  it('counts the UTF-8 size of every body it returns, in one message or several, escaped or not', () => {
    const odd: CapturedEvent = { ...event(0), data: { event: 'ñ 😀', properties: { x: '\uffff' } } };
    const cases = [
      packMessages(envelope, [odd, event(1, 10)]),
      packMessages(envelope, [odd, ...Array.from({ length: 10 }, (_, i) => event(i + 1, 300))], 1500),
      packMessages(
        envelope,
        Array.from({ length: 150 }, (_, i) => event(i, 20)),
      ),
    ];
    for (const { bodies, bodyBytes } of cases) {
      expect(bodyBytes).toEqual(bodies.map((body) => Buffer.byteLength(body)));
    }
    expect(cases.map(({ bodies }) => bodies.length)).toEqual([1, expect.any(Number), 2]);
    expect(cases[1]!.bodies.length).toBeGreaterThan(1);
  });

  it('keeps every event of a request whose events together exceed the per-event limit but fit one message', () => {
    // Prepare: 100 events of about 2.45 KB: 245 KB in all, over the 240 KiB per event, under 256 KiB
    const events = Array.from({ length: 100 }, (_, i) => event(i, 2350));
    const total = Buffer.byteLength(JSON.stringify(events));
    expect(total).toBeGreaterThan(captureLimits.maxEventBytes);

    // Act
    const { bodies, tooLarge } = packMessages(envelope, events);

    // Assess
    expect(tooLarge).toEqual([]);
    expect(uuidsOf(bodies)).toEqual(events.map((e) => e.uuid));
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(256 * 1024);
  });

  it('drops only the too-large event of a small request under the default limits', () => {
    const events = [event(1, 10), event(2, captureLimits.maxEventBytes), event(3, 10)];
    const { bodies, tooLarge } = packMessages(envelope, events);
    expect(tooLarge.map(({ event: dropped }) => dropped.uuid)).toEqual([event(2).uuid]);
    expect(uuidsOf(bodies)).toEqual([event(1).uuid, event(3).uuid]);
  });
});

describe('groupIntoBatches', () => {
  it('groups by the sizes the packing counted when it is given them', () => {
    const batches = groupIntoBatches(['a', 'b', 'c'], [600 * 1024, 600 * 1024, 10]);
    expect(batches).toEqual([['a'], ['b', 'c']]);
  });

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
