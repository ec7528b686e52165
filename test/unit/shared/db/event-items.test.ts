import { deflateRawSync } from 'node:zlib';
import { fromPluginEvent, toPluginEvent } from '../../../../functions/consumer/plugin-events';
import type { StoredEvent } from '../../../../functions/shared/domain/event';
import type { EventItem } from '../../../../functions/shared/db/events';
import { fromEventItem, toEventItem } from '../../../../functions/shared/db/events';
import { runPluginChain } from '../../../../functions/shared/domain/plugins/chain';
import { collectingConsole } from '../../../../functions/shared/domain/plugins/console';
import { geoIpPlugin } from '../../../../functions/shared/domain/plugins/geoip';
import type { GeoIpCity } from '../../../../functions/shared/domain/plugins/types';
import { processEvent } from '../../../../functions/shared/domain/process-event';
import type { CaptureMessage } from '../../../../functions/shared/queue/message';
import { itemSize } from '../../../helpers/dynalite-tables';

const owner = '3c1d6a0e-8f7b-4b2a-9c5d-1e2f3a4b5c6d';
const now = '2026-11-25T10:00:01.000Z';
const userAgent =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A posthog-js pageview's properties as a browser sends them (about 2.5 KB of JSON). */
const pageviewProperties = {
  $os: 'Mac OS X',
  $os_version: '10.15.7',
  $browser: 'Chrome',
  $device_type: 'Desktop',
  $timezone: 'Europe/Berlin',
  $current_url: 'https://shop.example.com/products/blue-sneakers?utm_source=google&utm_medium=cpc',
  $host: 'shop.example.com',
  $pathname: '/products/blue-sneakers',
  $raw_user_agent: userAgent,
  $browser_version: 131,
  $browser_language: 'en-US',
  $browser_language_prefix: 'en',
  $screen_height: 1117,
  $screen_width: 1728,
  $viewport_height: 959,
  $viewport_width: 1728,
  $lib: 'web',
  $lib_version: '1.194.3',
  $insert_id: 'q8z3k1v0m2xw9yti',
  $time: 1795600800.123,
  distinct_id: '0193a1b2-7c4d-7e5f-8a9b-0c1d2e3f4a5b',
  $device_id: '0193a1b2-7c4d-7e5f-8a9b-0c1d2e3f4a5b',
  $initial_person_info: { r: 'https://www.google.com/', u: 'https://shop.example.com/' },
  $console_log_recording_enabled_server_side: false,
  $session_recording_network_payload_capture: { capturePerformance: true },
  $autocapture_disabled_server_side: false,
  $web_vitals_enabled_server_side: false,
  $exception_capture_enabled_server_side: false,
  $dead_clicks_enabled_server_side: false,
  $session_recording_start_reason: 'recording_initialized',
  $referrer: 'https://www.google.com/',
  $referring_domain: 'www.google.com',
  utm_source: 'google',
  utm_medium: 'cpc',
  $is_identified: false,
  $process_person_profile: true,
  $session_id: '0193a1b2-7c4d-7e5f-8a9b-0c1d2e3f4a5c',
  $window_id: '0193a1b2-7c4d-7e5f-8a9b-0c1d2e3f4a5d',
  $pageview_id: '0193a1b2-7c4d-7e5f-8a9b-0c1d2e3f4a5e',
  $session_entry_url: 'https://shop.example.com/',
  $session_entry_host: 'shop.example.com',
  $session_entry_pathname: '/',
  $session_entry_referrer: 'https://www.google.com/',
  $session_entry_referring_domain: 'www.google.com',
  $session_entry_utm_source: 'google',
  $session_entry_utm_medium: 'cpc',
  $configured_session_timeout_ms: 1800000,
  $replay_script_config: null,
  $sdk_debug_retry_queue_size: 0,
  title: 'Blue sneakers – Example Shop',
  token: 'phc_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
  $lib_rate_limit_remaining_tokens: 98,
};

/** A full GeoLite2 City record: every section the GeoIP plugin writes. */
const sanFrancisco: GeoIpCity = {
  city: { names: { en: 'San Francisco' } },
  continent: { code: 'NA', names: { en: 'North America' } },
  country: { isoCode: 'US', names: { en: 'United States' } },
  location: { accuracyRadius: 20, latitude: 37.7749, longitude: -122.4194, timeZone: 'America/Los_Angeles' },
  postal: { code: '94107' },
  subdivisions: [{ isoCode: 'CA', names: { en: 'California' } }],
};

function message(properties: Record<string, unknown>): CaptureMessage {
  const data = {
    event: '$pageview',
    distinct_id: pageviewProperties.distinct_id,
    timestamp: '2026-11-25T10:00:00.000Z',
    properties,
  };
  return {
    v: 1,
    project_id: 7,
    now,
    sent_at: now,
    ip: '198.51.100.23',
    site_url: null,
    events: [{ uuid: '0193a1b2-7c4d-7e5f-8a9b-0c1d2e3f4a60', distinct_id: data.distinct_id, data }],
  };
}

/** The pageview as the consumer stores it, without plugins. */
function storedPageview(): StoredEvent {
  const captured = message(pageviewProperties);
  return processEvent(captured, captured.events[0]!);
}

/** The pageview as the consumer stores it after the GeoIP plugin (`$geoip_*`, `$set`, `$set_once`). */
async function geoIpPageview(): Promise<StoredEvent> {
  const captured = message(pageviewProperties);
  const result = await runPluginChain(
    toPluginEvent(captured, captured.events[0]!),
    [{ id: 1, order: 1, enabled: true, plugin: geoIpPlugin }],
    () => ({
      config: {},
      state: null,
      console: collectingConsole().console,
      geoip: { locate: async () => sanFrancisco },
    }),
  );
  const transformed = fromPluginEvent(captured.events[0]!, result.event!);
  return processEvent({ ...captured, ip: transformed.ip }, transformed.captured);
}

/** Which attributes of the item hold the properties. */
const propertyAttributes = (item: EventItem): string[] =>
  ['props', 'pd', 'pz'].filter((name) => item[name as keyof EventItem] !== undefined);

describe('event items', () => {
  it('stores small properties as text and reads them back', () => {
    const event = { ...storedPageview(), properties: { plan: 'pro', $lib: 'web' } };
    const item = toEventItem(event, owner);
    expect(propertyAttributes(item)).toEqual(['props']);
    expect(fromEventItem(item)).toEqual(event);
  });

  it('stores large properties deflated with the dictionary, and reads them back', () => {
    const event = storedPageview();
    const item = toEventItem(event, owner);
    expect(propertyAttributes(item)).toEqual(['pd']);
    expect(fromEventItem(item)).toEqual(event);
  });

  it('reads items written before the dictionary: deflated without one (`pz`)', () => {
    const event = storedPageview();
    const { pd: _pd, ...rest } = toEventItem(event, owner);
    // As toEventItem wrote them until the dictionary came.
    const old: EventItem = { ...rest, pz: deflateRawSync(JSON.stringify(event.properties), { level: 1 }) };
    expect(fromEventItem(old)).toEqual(event);
  });

  it('reads items written as text, whatever their size (`props`)', () => {
    const event = storedPageview();
    const { pd: _pd, ...rest } = toEventItem(event, owner);
    expect(fromEventItem({ ...rest, props: JSON.stringify(event.properties) })).toEqual(event);
  });

  it('keeps a GeoIP-processed posthog-js pageview within one write unit (1 KB)', async () => {
    const event = await geoIpPageview();
    expect(Buffer.byteLength(JSON.stringify(event.properties))).toBeGreaterThan(3500);
    const item = toEventItem(event, owner);
    expect(propertyAttributes(item)).toEqual(['pd']);
    expect(itemSize(item as unknown as Record<string, unknown>)).toBeLessThanOrEqual(1024);
    expect(fromEventItem(item)).toEqual(event);
  });
});
