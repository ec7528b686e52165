import type { BuiltInPlugin, PluginEvent, PluginMeta } from './types';

/**
 * PostHog's Taxonomy Standardizer (taxonomy-plugin): renames custom events to one naming convention.
 * PostHog's own `$` events and the survey events PostHog's UI sends by name are left alone.
 */

/** A convention: how to find names written in it, and how to rewrite a name into it. */
interface Convention {
  readonly name: string;
  /** Marks a name as written in this convention; `convert` replaces each match of a source's pattern. */
  readonly pattern: RegExp;
  /** Rewrites `text` into this convention, given the pattern of the convention it was found in. */
  readonly convert: (text: string, sourcePattern: RegExp) => string;
}

/** Uppercases the last character of a match: `_t` → `T` (snake), `T` → `T` (camel). */
const upperLast = (match: string): string => match.charAt(match.length - 1).toUpperCase();

/** Writes each match as `separator` + its letter in lowercase, then drops a leading separator (PascalCase). */
function separated(text: string, sourcePattern: RegExp, separator: string): string {
  const converted = text.replace(
    sourcePattern,
    (match) => separator + (match.length === 1 ? match.toLowerCase() : match.charAt(1).toLowerCase()),
  );
  return converted.charAt(0) === separator ? converted.slice(1) : converted;
}

// The order matters: a name is converted from the first other convention whose pattern it matches.
const CONVENTIONS: readonly Convention[] = [
  {
    name: 'camelCase',
    pattern: /[A-Z]/g,
    convert: (text, source) => text.charAt(0).toLowerCase() + text.slice(1).replace(source, upperLast),
  },
  {
    name: 'PascalCase',
    pattern: /[A-Z]/g,
    convert: (text, source) => text.charAt(0).toUpperCase() + text.slice(1).replace(source, upperLast),
  },
  { name: 'snake_case', pattern: /_[a-z]/g, convert: (text, source) => separated(text, source, '_') },
  { name: 'kebab-case', pattern: /-[a-z]/g, convert: (text, source) => separated(text, source, '-') },
  { name: 'spaces in between', pattern: /\s[a-z]/g, convert: (text, source) => separated(text, source, ' ') },
];

/** The config's choices, in the order of CONVENTIONS (whose names are the choices). */
const CHOICES = CONVENTIONS.map((convention) => convention.name);

const SKIPPED_EVENTS: ReadonlySet<string> = new Set(['survey shown', 'survey sent', 'survey dismissed']);

/** `name` in the `target` convention, converted from the first other convention it shows signs of. */
export function standardizeName(name: string, target: Convention): string {
  for (const source of CONVENTIONS) {
    if (source.name === target.name || name.search(source.pattern) < 0) continue;
    return target.convert(name, source.pattern);
  }
  return name;
}

function setup(config: Readonly<Record<string, string>>): Convention {
  const target = CONVENTIONS.find((convention) => convention.name === config['defaultNamingConvention']);
  // PostHog's plugin fails on every event with an unknown convention; failing setup says it once.
  if (!target) throw new Error(`Unknown naming convention "${config['defaultNamingConvention']}"`);
  return target;
}

function processEvent(event: PluginEvent, meta: PluginMeta<Convention>): PluginEvent {
  if (!event.event.startsWith('$') && !SKIPPED_EVENTS.has(event.event)) {
    event.event = standardizeName(event.event, meta.state);
  }
  return event;
}

export const taxonomyPlugin: BuiltInPlugin<Convention> = {
  id: 4,
  name: 'Taxonomy Plugin',
  description: 'Standardize your event names into a single pattern.',
  url: 'https://github.com/PostHog/taxonomy-plugin',
  config_schema: [
    {
      key: 'defaultNamingConvention',
      hint: '',
      name: 'Select your default naming pattern',
      type: 'choice',
      choices: CHOICES,
      order: 1,
      default: 'camelCase',
      required: true,
    },
  ],
  capabilities: { jobs: [], methods: ['processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup,
  processEvent,
};
