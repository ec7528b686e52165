import { processEvent, sanitizeEventName } from '../../../functions/shared/domain/process-event';
import type { CaptureMessage } from '../../../functions/shared/queue/message';

const message = (overrides: Partial<CaptureMessage> = {}): CaptureMessage => ({
  v: 1,
  project_id: 7,
  now: '2024-03-01T12:00:00.000Z',
  sent_at: null,
  ip: '203.0.113.9',
  site_url: 'https://app.example.com',
  events: [],
  ...overrides,
});

const captured = (data: Record<string, unknown>) => ({
  uuid: '01823e89-f75d-0000-0d4d-3d43e54f6de5',
  distinct_id: 'user-1',
  data: { properties: {}, ...data },
});

describe('processEvent', () => {
  it('stores the event with its project, distinct id, corrected timestamp and receive time', () => {
    const stored = processEvent(
      message({ sent_at: '2024-03-01T12:00:10.000Z' }),
      captured({ event: 'signup', timestamp: '2024-03-01T11:00:00.000Z', properties: { plan: 'pro' } }),
    );
    expect(stored).toEqual({
      uuid: '01823e89-f75d-0000-0d4d-3d43e54f6de5',
      projectId: 7,
      event: 'signup',
      distinctId: 'user-1',
      properties: { plan: 'pro', $ip: '203.0.113.9' },
      timestamp: '2024-03-01T10:59:50.000Z',
      elementsChain: '',
      createdAt: '2024-03-01T12:00:00.000Z',
    });
  });

  it('adds no $ip when capture nulled it for a project that anonymizes IPs', () => {
    expect(processEvent(message({ ip: null }), captured({ event: 'e' })).properties).toEqual({});
  });

  it('keeps an $ip the SDK sent itself', () => {
    expect(
      processEvent(message(), captured({ event: 'e', properties: { $ip: '10.0.0.1' } })).properties.$ip,
    ).toBe('10.0.0.1');
  });

  it('merges top-level $set/$set_once of posthog-js’s $identify into the properties', () => {
    const stored = processEvent(
      message({ ip: null }),
      captured({
        event: '$identify',
        $set: { email: 'a@example.com' },
        $set_once: { first_seen: 'x' },
        properties: { $anon_distinct_id: 'anon-1' },
      }),
    );
    expect(stored.properties).toEqual({
      $anon_distinct_id: 'anon-1',
      $set: { email: 'a@example.com' },
      $set_once: { first_seen: 'x' },
    });
  });

  it('adds initial and UTM person properties to person events', () => {
    const stored = processEvent(
      message({ ip: null }),
      captured({ event: '$pageview', properties: { utm_source: 'news', $browser: 'Firefox' } }),
    );
    expect(stored.properties.$set).toEqual({ utm_source: 'news' });
    expect(stored.properties.$set_once).toEqual({ $initial_utm_source: 'news', $initial_browser: 'Firefox' });
  });

  it('adds no initial or UTM properties to an event without person processing', () => {
    const stored = processEvent(
      message({ ip: null }),
      captured({ event: '$pageview', properties: { utm_source: 'news', $process_person_profile: false } }),
    );
    expect(stored.properties).toEqual({ utm_source: 'news', $process_person_profile: false });
  });

  it('moves autocapture $elements into elements_chain', () => {
    const stored = processEvent(
      message({ ip: null }),
      captured({
        event: '$autocapture',
        properties: {
          $event_type: 'click',
          $elements: [{ tag_name: 'button', $el_text: 'Buy', nth_child: 1, nth_of_type: 1 }],
        },
      }),
    );
    expect(stored.elementsChain).toBe('button:nth-child="1"nth-of-type="1"text="Buy"');
    expect(stored.properties).toEqual({ $event_type: 'click' });
  });

  it('keeps the $elements_chain string posthog-js sends', () => {
    const stored = processEvent(
      message({ ip: null }),
      captured({
        event: '$autocapture',
        properties: { $elements_chain: 'a:href="/x"nth-child="1"nth-of-type="1"' },
      }),
    );
    expect(stored.elementsChain).toBe('a:href="/x"nth-child="1"nth-of-type="1"');
    expect(stored.properties).toEqual({});
  });

  it('cuts the event name to 200 characters', () => {
    expect(processEvent(message(), captured({ event: 'e'.repeat(250) })).event).toHaveLength(200);
  });

  it('copies the properties it is given, unless the caller hands them over', () => {
    // Arrange: the same captured event twice, with a top-level $set as posthog-js sends on $identify
    const sent = () =>
      captured({ event: '$identify', properties: { plan: 'pro' }, $set: { email: 'a@b.c' } });
    const kept = sent();
    const handed = sent();

    // Act
    const copied = processEvent(message(), kept);
    const owned = processEvent(message(), handed, true);

    // Assess: the same stored event either way; the given object is untouched unless handed over,
    // and then it is the stored properties themselves, with no copy made
    expect(owned).toEqual(copied);
    expect(kept.data.properties).toEqual({ plan: 'pro' });
    expect(copied.properties).not.toBe(kept.data.properties);
    expect(owned.properties).toBe(handed.data.properties);
  });
});

describe('sanitizeEventName', () => {
  it('turns a non-string name into its JSON text', () => {
    expect(sanitizeEventName({ a: 1 })).toBe('{"a":1}');
    expect(sanitizeEventName(42)).toBe('42');
  });

  it('counts characters as code points: 200 emoji are kept whole, the 201st is cut, a lone surrogate is one', () => {
    expect(sanitizeEventName('🎉'.repeat(200))).toBe('🎉'.repeat(200));
    expect(sanitizeEventName('🎉'.repeat(201))).toBe('🎉'.repeat(200));
    expect(sanitizeEventName(`${'e'.repeat(199)}🎉x`)).toBe(`${'e'.repeat(199)}🎉`);
    expect(sanitizeEventName(`\ud800${'e'.repeat(199)}`)).toBe(`\ud800${'e'.repeat(199)}`);
    expect(sanitizeEventName(`\ud800${'e'.repeat(200)}`)).toBe(`\ud800${'e'.repeat(199)}`);
    expect(sanitizeEventName('e'.repeat(200))).toBe('e'.repeat(200));
  });
});
