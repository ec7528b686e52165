import type { LakeEvent } from '../../../functions/shared/lake/row';
import { messageLimits } from '../../../functions/shared/queue/definitions';
import { toEventItem } from '../../../functions/shared/db/events';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import {
  lakeMessageSchema,
  packLakeMessages,
  parseLakeBody,
  toLakeEvent,
} from '../../../functions/shared/queue/lake-message';

const event = (uuid: string, personBytes: number, ownBytes = 10): LakeEvent => ({
  uuid,
  event: 'pageview',
  distinct_id: 'user',
  timestamp: '2026-11-27T06:00:00.000Z',
  created_at: '2026-11-27T06:00:01.000Z',
  properties: { text: 'e'.repeat(ownBytes) },
  elements_chain: '',
  person_id: '0190d3b7-0000-7000-8000-000000000001',
  person_properties: { bio: 'p'.repeat(personBytes) },
});

/** The events of every body, parsed as the lake writer parses them. */
const eventsOf = (bodies: readonly string[]): LakeEvent[] =>
  bodies.flatMap((body) => lakeMessageSchema.parse(parseLakeBody(body)).events);

describe('lake messages with person properties', () => {
  it('keeps every body within the message limit, person properties included', () => {
    // GIVEN 20 events whose persons hold 100 KiB of properties each
    const events = Array.from({ length: 20 }, (_, index) => event(`e${index}`, 100 * 1024));
    // WHEN
    const packed = packLakeMessages(1, 'message-1', events);
    // THEN one or two events a body, all handed over with their person properties
    expect(packed.bodyBytes.every((bytes) => bytes <= messageLimits.maxMessageBytes)).toBe(true);
    expect(eventsOf(packed.bodies).map((one) => one.person_properties?.bio)).toEqual(
      events.map((one) => one.person_properties?.bio),
    );
    expect(packed).toMatchObject({ tooLarge: 0, withoutPersonProperties: 0 });
  });

  it('hands an event over without its person properties when both would not fit one message', () => {
    // GIVEN an event of 150 KiB whose person holds 150 KiB of properties, and a small one
    const large = event('large', 150 * 1024, 150 * 1024);
    const small = event('small', 10);
    // WHEN
    const packed = packLakeMessages(1, 'message-1', [large, small]);
    // THEN both are handed over, the large one with its person id but no person properties
    const byUuid = new Map(eventsOf(packed.bodies).map((one) => [one.uuid, one]));
    expect(byUuid.get('large')).toMatchObject({ person_id: large.person_id, person_properties: null });
    expect(byUuid.get('large')?.properties).toEqual(large.properties);
    expect(byUuid.get('small')?.person_properties).toEqual(small.person_properties);
    expect(packed).toMatchObject({ tooLarge: 0, withoutPersonProperties: 1 });
  });

  it("lists a person's properties once per body for all the events that share them", () => {
    // GIVEN 20 events of one person, sharing one properties object as the persons stage hands them out
    const person = { $geoip_city_name: 'Sydney', email: 'ann@example.com' };
    const events = Array.from({ length: 20 }, (_, index) => ({
      ...event(`e${index}`, 0),
      person_properties: person,
    }));
    const stringify = jest.spyOn(JSON, 'stringify');

    // WHEN
    let packed: ReturnType<typeof packLakeMessages>;
    let personTexts: number;
    try {
      packed = packLakeMessages(1, 'message-1', events);
      personTexts = stringify.mock.calls.filter(([value]) => value === person).length;
    } finally {
      stringify.mockRestore();
    }

    // THEN one body whose persons list holds them once, and every event reads them back
    expect(packed.bodies).toHaveLength(1);
    expect(personTexts).toBe(1);
    expect((parseLakeBody(packed.bodies[0]!) as { persons: unknown[] }).persons).toEqual([person]);
    expect(eventsOf(packed.bodies).map((one) => one.person_properties)).toEqual(events.map(() => person));
  });

  it('writes a person at the 160 KiB cap once per body, not once per event', () => {
    // GIVEN 1,000 small events of one person whose properties are at the cap: 160 MB as version 1 wrote it
    const person = { bio: 'p'.repeat(160 * 1024 - 20) };
    const events = Array.from({ length: 1000 }, (_, index) => ({
      ...event(`e${index}`, 0),
      person_properties: person,
    }));

    // WHEN
    const packed = packLakeMessages(1, 'message-1', events);

    // THEN each body (at most 100 events) carries the person once: about 160 KiB a body
    const persons = packed.bodies.map(
      (body) => (parseLakeBody(body) as { persons: unknown[] }).persons.length,
    );
    expect(persons.every((count) => count === 1)).toBe(true);
    expect(packed.bodies.length).toBeLessThanOrEqual(10);
    expect(eventsOf(packed.bodies)).toHaveLength(1000);
    expect(packed).toMatchObject({ tooLarge: 0, withoutPersonProperties: 0 });
  });

  it('reads a version 1 message, each event with its person properties, as before', () => {
    const one = event('v1', 10);
    const body = JSON.stringify({ v: 1, project_id: 1, source: 'message-1', events: [one] });
    expect(lakeMessageSchema.parse(parseLakeBody(body)).events).toEqual([one]);
  });

  it('refuses a message whose event names a person entry it does not list', () => {
    const { person_properties: _, ...own } = event('orphan', 10);
    const body = JSON.stringify({
      v: 2,
      project_id: 1,
      source: 'message-1',
      persons: [],
      events: [{ ...own, person: 0 }],
    });
    expect(lakeMessageSchema.safeParse(parseLakeBody(body)).success).toBe(false);
  });

  it("writes an event's properties as JSON once for its item and its hand-off", () => {
    // GIVEN a stored event
    const stored: StoredEvent = {
      uuid: '0190d3b7-0000-7000-8000-0000000000aa',
      projectId: 1,
      event: 'pageview',
      distinctId: 'user',
      properties: { $current_url: 'https://example.com/', plan: 'pro' },
      timestamp: '2026-11-27T06:00:00.000Z',
      elementsChain: '',
      createdAt: '2026-11-27T06:00:01.000Z',
    };
    const stringify = jest.spyOn(JSON, 'stringify');

    // WHEN the store makes its item and the lake hand-off its body
    let texts: number;
    let packed: ReturnType<typeof packLakeMessages>;
    try {
      toEventItem(stored, 'owner');
      packed = packLakeMessages(1, 'message-1', [toLakeEvent(stored)]);
      texts = stringify.mock.calls.filter(([value]) => value === stored.properties).length;
    } finally {
      stringify.mockRestore();
    }

    // THEN one JSON text served both
    expect(texts).toBe(1);
    expect(eventsOf(packed.bodies)[0]?.properties).toEqual(stored.properties);
  });
});
