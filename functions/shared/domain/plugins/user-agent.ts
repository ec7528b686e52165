import { detect } from 'detect-browser';
import { boundedCache } from '../../cache';
import { textOf } from './spread';
import { withoutKeys } from '../properties';
import type { BuiltInPlugin, PluginEvent, PluginMeta } from './types';

/**
 * PostHog's User Agent Populator (user-agent-plugin): for events from clients that send a raw user
 * agent but no browser details (server SDKs relaying a browser's request), derives `$browser`,
 * `$browser_version`, `$os`, `$device`, `$device_type` and `$browser_type` with `detect-browser`, the
 * library the plugin uses, so the values match PostHog's (`safari`, `14.0.0`, `Mac OS`).
 */

export interface UserAgentState {
  readonly enableSegmentAnalyticsJs: boolean;
  readonly overrideUserAgentDetails: boolean;
  readonly debugMode: boolean;
}

const USER_AGENT_KEYS = ['$useragent', '$user-agent', '$user_agent'] as const;
const USER_AGENT_KEY_SET: ReadonlySet<string> = new Set(USER_AGENT_KEYS);
const BROWSER_KEYS: ReadonlySet<string> = new Set([
  '$browser',
  '$browser_version',
  '$os',
  '$device',
  '$device_type',
]);

/** posthog-js's device detection (as the plugin copied it), checked in this order. */
export function detectDevice(userAgent: string): string {
  if (/Windows Phone/i.test(userAgent) || /WPDesktop/.test(userAgent)) return 'Windows Phone';
  if (/iPad/.test(userAgent)) return 'iPad';
  if (/iPod/.test(userAgent)) return 'iPod Touch';
  if (/iPhone/.test(userAgent)) return 'iPhone';
  if (/BlackBerry|PlayBook|BB10/i.test(userAgent)) return 'BlackBerry';
  if (/Android/.test(userAgent) && !/Mobile/.test(userAgent)) return 'Android Tablet';
  if (/Android/.test(userAgent)) return 'Android';
  return '';
}

export function detectDeviceType(userAgent: string): string {
  const device = detectDevice(userAgent);
  if (device === 'iPad' || device === 'Android Tablet') return 'Tablet';
  return device ? 'Mobile' : 'Desktop';
}

/** What the plugin derives from one user agent. */
interface Derived {
  readonly device: string;
  readonly deviceType: string;
  readonly agent: ReturnType<typeof detect>;
}

/** User agents this long at most are remembered (real ones are a few hundred characters). */
const maxRememberedLength = 512;
const derivedByAgent = boundedCache<string, Derived>({ max: 2_000 });

/**
 * detect-browser (its `userAgentRules`) runs backtracking regexes whose time grows with a power of
 * the text's length: `Version\/([0-9\._]+).*Safari` the square, `Version\/([0-9\._]+).*Mobile.*Safari.*`
 * the cube, the IE 11 rule `Trident\/7\.0.*rv\:([0-9\.]+).*\).*Gecko$` about the fourth (it tries
 * every combination of `Trident/7.0`, `rv:` and `)`: 1.3 s for one 4,000-character user agent; one of
 * 240 KB would never end). A user agent comes from the client, so only its first 512 characters are
 * parsed (real ones are shorter; a longer one is parsed as if it ended there), which bounds every
 * rule but the IE one to a fraction of a millisecond.
 */
export const maxParsedUserAgentLength = 512;

/** The IE 11 rule's anchors: it tries every combination of their occurrences. */
const ieRuleAnchors = ['Trident/7.0', 'rv:', ')'] as const;
/**
 * At most this many combinations of `ieRuleAnchors` (their counts, 1 for an absent one, multiplied)
 * in a text that holds `Trident/7.0`: a real IE 11 user agent has one `Trident/7.0`, one `rv:` and
 * one or two `)`. A text with more, which only a client built to stall the consumer sends, gets no
 * browser details, as one detect-browser does not know.
 */
export const maxIeRuleCombinations = 4;

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** detect-browser's answer for the text, if its rules can give one in bounded time (see above). */
function detectBounded(text: string): ReturnType<typeof detect> {
  if (text.includes(ieRuleAnchors[0])) {
    let combinations = 1;
    for (const anchor of ieRuleAnchors) combinations *= Math.max(1, occurrences(text, anchor));
    if (combinations > maxIeRuleCombinations) return null;
  }
  return detect(text);
}

/**
 * The device and browser of `userAgent`: a client sends the same one with every event, so the answers
 * for the last 2,000 are kept, and most events skip detect-browser's list of patterns.
 */
function derive(userAgent: string): Derived {
  const known = derivedByAgent.get(userAgent);
  if (known) return known;
  const derived = {
    device: detectDevice(userAgent),
    deviceType: detectDeviceType(userAgent),
    agent: detectBounded(userAgent.slice(0, maxParsedUserAgentLength)),
  };
  if (userAgent.length <= maxRememberedLength) derivedByAgent.set(userAgent, derived);
  return derived;
}

/**
 * The user agent to parse, with the properties left once the raw user agent is removed (the plugin
 * does not keep it: it replaces it with what it derives from it); null (after a debug warning) when
 * the event carries none. The properties without it are a copy (`withoutKeys`), where the plugin
 * deletes the keys: the same keys in the same order.
 */
function userAgentOf(
  properties: Record<string, unknown>,
  meta: PluginMeta<UserAgentState>,
): { readonly userAgent: string; readonly properties: Record<string, unknown> } | null {
  const keys = Object.keys(properties);
  if (meta.state.enableSegmentAnalyticsJs) {
    if (!keys.includes('segment_userAgent')) {
      if (meta.state.debugMode)
        meta.console.warn('UserAgentPlugin.processEvent(): Event is missing segment_userAgent');
      return null;
    }
    return { userAgent: textOf(properties['segment_userAgent']), properties };
  }
  if (!USER_AGENT_KEYS.some((key) => keys.includes(key))) {
    if (meta.state.debugMode) {
      meta.console.warn('UserAgentPlugin.processEvent(): Event is missing $useragent or $user-agent');
    }
    return null;
  }
  const found = USER_AGENT_KEYS.map((key) => properties[key]).find(Boolean);
  return { userAgent: found ? textOf(found) : '', properties: withoutKeys(properties, USER_AGENT_KEY_SET) };
}

function processEvent(event: PluginEvent, meta: PluginMeta<UserAgentState>): PluginEvent {
  // PostHog's port guards a missing `properties`; the standalone plugin threw on it.
  const found = userAgentOf(event.properties ?? {}, meta);
  if (found === null) return event;
  // Whatever follows, the raw user agent is gone, as the plugin's `delete` leaves it.
  const { userAgent, properties } = found;
  event.properties = properties;
  if (userAgent === '') {
    if (meta.state.debugMode) meta.console.warn('UserAgentPlugin.processEvent(): $useragent is empty');
    return event;
  }
  const hasBrowserProperties = Object.keys(properties).some((key) => BROWSER_KEYS.has(key));
  if (!meta.state.overrideUserAgentDetails && hasBrowserProperties) {
    if (meta.state.debugMode) {
      meta.console.warn(
        "UserAgentPlugin.processEvent(): The event has $browser, $browser_version, $os, $device, or $device_type but the option 'overrideUserAgentDetails' is not enabled.",
      );
    }
    return event;
  }
  const { device, deviceType, agent } = derive(userAgent);
  properties['$device'] = device;
  properties['$device_type'] = deviceType;
  if (agent) {
    properties['$browser'] = agent.name;
    properties['$browser_version'] = agent.version;
    properties['$os'] = agent.os;
    properties['$browser_type'] = agent.type;
  }
  return event;
}

export const userAgentPlugin: BuiltInPlugin<UserAgentState> = {
  id: 7,
  name: 'User Agent Populator',
  description: 'Enhances events with user agent details',
  url: 'https://github.com/posthog/useragent-plugin',
  config_schema: [
    {
      markdown:
        "User Agent plugin allows you to populate events with the $browser, $browser_version for PostHog Clients that don't  typically populate these properties",
    },
    {
      key: 'overrideUserAgentDetails',
      name: 'Can override existing browser related properties of event?',
      type: 'string',
      hint: 'If the ingested event already have $browser $browser_version properties in combination with $useragent the $browser, $browser_version properties will be re-populated with the value of $useragent',
      default: 'false',
      required: false,
    },
    {
      key: 'enableSegmentAnalyticsJs',
      name: 'Automatically read segment_userAgent property, automatically sent by Segment via analytics.js?',
      type: 'choice',
      hint: "Segment's analytics.js library automatically sends a useragent property that Posthog sees as segment_userAgent. Enabling this causes this plugin to parse that property",
      choices: ['false', 'true'],
      default: 'false',
      required: false,
    },
    {
      key: 'debugMode',
      type: 'choice',
      hint: 'Enable debug mode to log when the plugin is unable to extract values from the user agent',
      choices: ['false', 'true'],
      default: 'false',
      required: false,
    },
  ],
  capabilities: { jobs: [], methods: ['setupPlugin', 'processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup: (config) => ({
    enableSegmentAnalyticsJs: config['enableSegmentAnalyticsJs'] === 'true',
    overrideUserAgentDetails: config['overrideUserAgentDetails'] === 'true',
    debugMode: config['debugMode'] === 'true',
  }),
  processEvent,
};
