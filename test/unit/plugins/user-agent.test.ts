import * as detectBrowser from 'detect-browser';
import {
  detectDeviceType,
  maxIeRuleCombinations,
  maxParsedUserAgentLength,
  userAgentPlugin,
} from '../../../functions/shared/domain/plugins/user-agent';
import { metaFor, pluginEvent, run } from './fixtures';

const SAFARI_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.0 Safari/605.1.15';
const EDGE_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/96.0.4664.110 Safari/537.36 Edg/96.0.1054.57';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 15_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.4 Mobile/15E148 Safari/604.1';

const populate = async (properties: Record<string, unknown>, config: Record<string, string> = {}) => {
  const meta = metaFor(userAgentPlugin, config);
  const event = await run(userAgentPlugin, pluginEvent({ properties }), meta);
  return { properties: event?.properties, lines: meta.lines };
};

describe('User Agent Populator plugin', () => {
  it.each(['$useragent', '$user-agent', '$user_agent'])(
    'derives browser, version, OS and device from %s and removes the raw user agent',
    async (key) => {
      const { properties } = await populate({ [key]: SAFARI_MAC, $lib: 'posthog-node' });
      expect(properties).toEqual({
        $lib: 'posthog-node',
        $browser: 'safari',
        $browser_version: '14.0.0',
        $os: 'Mac OS',
        $device: '',
        $device_type: 'Desktop',
        $browser_type: 'browser',
      });
    },
  );

  it("names Edge and iPhone Safari as detect-browser does (PostHog's test vectors)", async () => {
    expect((await populate({ $useragent: EDGE_MAC })).properties).toMatchObject({
      $browser: 'edge-chromium',
      $browser_version: '96.0.1054',
      $os: 'Mac OS',
      $device: '',
      $device_type: 'Desktop',
    });
    expect((await populate({ $useragent: IPHONE })).properties).toMatchObject({
      $browser: 'ios',
      $browser_version: '15.4.0',
      $os: 'iOS',
      $device: 'iPhone',
      $device_type: 'Mobile',
    });
  });

  it('classifies tablets by the posthog-js rules', () => {
    expect(detectDeviceType('Mozilla/5.0 (iPad; CPU OS 13_2 like Mac OS X)')).toBe('Tablet');
    expect(detectDeviceType('Mozilla/5.0 (Linux; Android 10; SM-T510) Safari/537.36')).toBe('Tablet');
    expect(detectDeviceType('Mozilla/5.0 (Linux; Android 10; Pixel 3) Mobile Safari/537.36')).toBe('Mobile');
  });

  it('keeps browser details the event already has unless overriding is on, still removing the raw user agent', async () => {
    const existing = { $browser: 'safari', $browser_version: '14.0', $os: 'macos' };
    const kept = await populate({ ...existing, $useragent: EDGE_MAC, $lib: 'x' }, { debugMode: 'true' });
    expect(kept.properties).toEqual({ ...existing, $lib: 'x' });
    expect(kept.lines).toEqual([
      {
        type: 'WARN',
        message:
          "UserAgentPlugin.processEvent(): The event has $browser, $browser_version, $os, $device, or $device_type but the option 'overrideUserAgentDetails' is not enabled.",
      },
    ]);
    const overridden = await populate(
      { ...existing, $useragent: EDGE_MAC },
      { overrideUserAgentDetails: 'true' },
    );
    expect(overridden.properties).toMatchObject({ $browser: 'edge-chromium', $os: 'Mac OS' });
  });

  it('does nothing without a user agent, and removes an empty one', async () => {
    expect((await populate({ $lib: 'posthog-node' })).properties).toEqual({ $lib: 'posthog-node' });
    expect((await populate({ $useragent: '', $lib: 'posthog-node' })).properties).toEqual({
      $lib: 'posthog-node',
    });
  });

  it('removes the raw user agent as `delete` would: the other keys in their order, then the derived ones', async () => {
    const { properties } = await populate({
      $lib: 'web',
      $useragent: EDGE_MAC,
      $user_agent: 'x',
      plan: 'pro',
    });
    expect(Object.keys(properties ?? {})).toEqual([
      '$lib',
      'plan',
      '$device',
      '$device_type',
      '$browser',
      '$browser_version',
      '$os',
      '$browser_type',
    ]);
  });

  it('logs why it skipped only in debug mode', async () => {
    expect((await populate({ $lib: 'x' })).lines).toEqual([]);
    expect((await populate({ $lib: 'x' }, { debugMode: 'true' })).lines).toEqual([
      { type: 'WARN', message: 'UserAgentPlugin.processEvent(): Event is missing $useragent or $user-agent' },
    ]);
  });

  it('reads segment_userAgent in Segment mode and keeps it', async () => {
    const { properties } = await populate(
      { segment_userAgent: SAFARI_MAC, $useragent: EDGE_MAC },
      { enableSegmentAnalyticsJs: 'true' },
    );
    expect(properties).toMatchObject({
      segment_userAgent: SAFARI_MAC,
      $useragent: EDGE_MAC,
      $browser: 'safari',
    });
  });

  it('parses a user agent once: a repeated one is answered from memory, a very long one is not kept', async () => {
    const parses = jest.spyOn(detectBrowser, 'detect');
    try {
      const agent = `${SAFARI_MAC} remembered`;
      const first = (await populate({ $useragent: agent })).properties;
      expect((await populate({ $useragent: agent })).properties).toEqual(first);
      expect(parses).toHaveBeenCalledTimes(1);
      const long = `${SAFARI_MAC} ${'x'.repeat(600)}`;
      await populate({ $useragent: long });
      await populate({ $useragent: long });
      expect(parses).toHaveBeenCalledTimes(3);
    } finally {
      parses.mockRestore();
    }
  });

  it('parses only the first 512 characters of a user agent: detect-browser backtracks over the rest', async () => {
    const parses = jest.spyOn(detectBrowser, 'detect');
    try {
      // 'Version/' and digits: detect-browser's Safari rules scan the rest of the text once per digit.
      const agent = `${IPHONE} Version/${'1'.repeat(240_000)}`;
      const { properties } = await populate({ $useragent: agent });
      expect(parses).toHaveBeenCalledTimes(1);
      const parsed = parses.mock.calls[0]![0]!;
      expect(parsed).toHaveLength(maxParsedUserAgentLength);
      expect(agent.startsWith(parsed)).toBe(true);
      expect(properties).toMatchObject({ $browser: 'ios', $browser_version: '15.4.0', $device: 'iPhone' });
    } finally {
      parses.mockRestore();
    }
  });

  it('does not give detect-browser a text that makes its IE 11 rule try every combination of its anchors', async () => {
    const parses = jest.spyOn(detectBrowser, 'detect');
    try {
      // `Trident\/7\.0.*rv\:([0-9\.]+).*\).*Gecko$` tries every (Trident/7.0, rv:, `)`) it holds.
      const stalling = 'Trident/7.0 '.repeat(10) + 'rv:1 '.repeat(10) + ') '.repeat(10);
      const { properties } = await populate({ $useragent: stalling });
      expect(parses).not.toHaveBeenCalled();
      expect(properties).toEqual({ $device: '', $device_type: 'Desktop' });
      const ie11 = 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko';
      expect((await populate({ $useragent: ie11 })).properties).toMatchObject({
        $browser: 'ie',
        $browser_version: '11.0.0',
        $os: 'Windows 10',
      });
      expect(parses).toHaveBeenCalledTimes(1);
      expect(maxIeRuleCombinations).toBeGreaterThanOrEqual(4);
    } finally {
      parses.mockRestore();
    }
  });

  it('leaves an event without properties as it is', async () => {
    const event = pluginEvent();
    expect(await run(userAgentPlugin, event, metaFor(userAgentPlugin))).toEqual(pluginEvent());
  });
});
