import type { LakeEvent } from '../../../functions/shared/lake/row';
import { messageLimits } from '../../../functions/shared/queue/definitions';
import {
  lakeMessageSchema,
  packLakeMessages,
  parseLakeBody,
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
});
