import { capturedEventOf, rawEventsOf } from '../../../functions/capture/payload';

describe('rawEventsOf', () => {
  it('reads a batch envelope, a bare array and a single event', () => {
    const event = { event: 'e' };

    expect(rawEventsOf({ api_key: 'k', batch: [event] }, '/batch/')).toEqual([event]);
    expect(rawEventsOf([event, event], '/e/')).toEqual([event, event]);
    expect(rawEventsOf(event, '/capture/')).toEqual([event]);
  });

  it('treats an empty batch as no batch, as Django does with a falsy `batch`', () => {
    const payload = { api_key: 'k', batch: [], event: 'e' };

    expect(rawEventsOf(payload, '/batch/')).toEqual([payload]);
  });

  it('names a dict posted to an engage path $identify, also behind a stage prefix', () => {
    expect(rawEventsOf({ $distinct_id: 'd' }, '/prod/engage/')).toEqual([
      { $distinct_id: 'd', event: '$identify' },
    ]);
  });
});

describe('capturedEventOf: Django order of checks', () => {
  it('drops an event without a distinct id before looking at its uuid', () => {
    expect(capturedEventOf({ event: 'e', uuid: 'bad' })).toBeUndefined();
  });

  it('refuses a malformed uuid before dropping an event without a name', () => {
    expect(() => capturedEventOf({ distinct_id: 'd', uuid: 'bad' })).toThrow(
      'Event field "uuid" is not a valid UUID!',
    );
  });

  it('accepts the urn form of a uuid', () => {
    expect(
      capturedEventOf({ event: 'e', distinct_id: 'd', uuid: 'urn:uuid:0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B' })
        ?.uuid,
    ).toBe('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
  });

  it('keeps a non-string event name for ingestion to stringify', () => {
    expect(capturedEventOf({ event: 42, distinct_id: 'd' })?.data.event).toBe(42);
  });

  it('stringifies an object distinct id as JSON', () => {
    expect(capturedEventOf({ event: 'e', distinct_id: { id: 1 } })?.distinct_id).toBe('{"id":1}');
  });

  it('forwards the event object itself, completed in place', () => {
    const raw = { event: 'e', distinct_id: 'd' };

    const captured = capturedEventOf(raw);

    expect(captured?.data).toBe(raw);
    expect(raw).toEqual({ event: 'e', distinct_id: 'd', properties: {} });
  });
});
