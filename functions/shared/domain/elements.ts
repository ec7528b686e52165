import { isObject } from './properties';
/**
 * Autocapture elements → PostHog's `elements_chain` string (plugin-server `elementsToString`):
 * per element `tag.class1.class2:` followed by its sorted `key="value"` attributes, elements joined
 * by `;`. posthog-js ≥ 1.100 sends the chain itself as `$elements_chain`, which wins.
 */

type JsonObject = Record<string, unknown>;

export interface Element {
  readonly tag_name?: string;
  readonly text?: string;
  readonly href?: string;
  readonly attr_class?: readonly string[];
  readonly attr_id?: string;
  readonly nth_child?: number;
  readonly nth_of_type?: number;
  readonly attributes: Readonly<Record<string, unknown>>;
}

const maxTextLength = 400;
const maxHrefLength = 2048;

const stringOrUndefined = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;
const numberOrUndefined = (value: unknown): number | undefined =>
  typeof value === 'number' ? value : undefined;

function classesOf(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string' && value !== '') return value.split(' ');
  return undefined;
}

/** posthog-js's `$elements` entries → elements (`$el_text` ≤ 400 chars, `attr__href` ≤ 2048). */
export function extractElements(rawElements: readonly unknown[]): Element[] {
  return rawElements.filter(isObject).map((raw) => ({
    text: stringOrUndefined(raw.$el_text)?.slice(0, maxTextLength),
    tag_name: stringOrUndefined(raw.tag_name),
    href: stringOrUndefined(raw.attr__href)?.slice(0, maxHrefLength),
    attr_class: classesOf(raw.attr__class),
    attr_id: stringOrUndefined(raw.attr__id),
    nth_child: numberOrUndefined(raw.nth_child),
    nth_of_type: numberOrUndefined(raw.nth_of_type),
    attributes: Object.fromEntries(Object.entries(raw).filter(([key]) => key.startsWith('attr__'))),
  }));
}

const escapeQuotes = (text: string): string => text.replace(/"/g, '\\"');

/** PostHog's `value.toString()` (an array of classes becomes `a,b`), without failing on null. */
const attributeText = (value: unknown): string => String(value);

/** PostHog sorts attribute names with `localeCompare`; a fixed locale keeps the order the same everywhere. */
const byName = ([a]: [string, unknown], [b]: [string, unknown]): number => a.localeCompare(b, 'en-US');

function elementToString(element: Element): string {
  let text = element.tag_name ?? '';
  for (const name of [...(element.attr_class ?? [])].sort()) text += `.${name.replace(/"/g, '')}`;
  const attributes: Record<string, unknown> = {
    ...(element.text ? { text: element.text } : {}),
    'nth-child': element.nth_child ?? 0,
    'nth-of-type': element.nth_of_type ?? 0,
    ...(element.href ? { href: element.href } : {}),
    ...(element.attr_id ? { attr_id: element.attr_id } : {}),
    ...element.attributes,
  };
  const pairs = Object.entries(attributes)
    .sort(byName)
    .map(([key, value]) => `${escapeQuotes(key)}="${escapeQuotes(attributeText(value))}"`);
  return `${text}:${pairs.join('')}`;
}

export function elementsToString(elements: readonly Element[]): string {
  return elements.map(elementToString).join(';');
}

/**
 * Takes `$elements_chain` / `$elements` out of the properties (they are stored as `elements_chain`,
 * not as properties) and returns the chain: the SDK's own string if it sent one, else the chain built
 * from `$elements`, else ''.
 */
export function takeElementsChain(properties: JsonObject): string {
  const sentChain = properties.$elements_chain;
  const elements = properties.$elements;
  delete properties.$elements_chain;
  delete properties.$elements;
  if (typeof sentChain === 'string' && sentChain !== '') return sentChain;
  if (Array.isArray(elements) && elements.length > 0) return elementsToString(extractElements(elements));
  return '';
}

/** An element as the events API serves it (`posthog/api/event.py`). */
export interface SerializedElement {
  event: null;
  text: string | null;
  tag_name: string | null;
  attr_class: string[] | null;
  href: string | null;
  attr_id: string | null;
  nth_child: number | null;
  nth_of_type: number | null;
  attributes: Record<string, string>;
  order: number;
}

/*
 * PostHog parses a chain with three regular expressions (posthog/models/element: chain_to_elements):
 *   split_chain        (?:[^\s;"]|"(?:\\.|[^"])*")+      (global)
 *   split_class_attrs  (.*?)($|:([a-zA-Z\-_0-9]*=.*))
 *   parse_attributes   ((.*?)="(.*?[^\\])")            (global)
 * On a backtracking engine the first is exponential (`a"` and a run of backslashes) and the other two
 * quadratic, and the chain is event data anyone holding a project token can send. The scanners below
 * return exactly what those patterns match (a differential test runs both over random chains), in one
 * pass each.
 */

/** A character `.` matches in a JavaScript regex without the `s` flag. */
function isLineTerminator(char: string | undefined): boolean {
  return char === '\n' || char === '\r' || char === '\u2028' || char === '\u2029';
}

const whitespace = /\s/;

/** A character that may stand outside quotes in a chain token (`[^\s;"]`). */
function isBareChar(char: string): boolean {
  return char !== ';' && char !== '"' && !whitespace.test(char);
}

/**
 * The end of the quoted part opened at `open`, or -1 when none can close. Escapes are read greedily;
 * an unterminated quote is closed, as backtracking does, at the last `"` of the text after it.
 */
function quotedEnd(chain: string, open: number): number {
  for (let i = open + 1; i < chain.length; i += 1) {
    if (chain[i] === '\\') i += 1;
    else if (chain[i] === '"') return i + 1;
  }
  const last = chain.lastIndexOf('"');
  return last > open ? last + 1 : -1;
}

/** The chain's element tokens: `split_chain`'s matches. */
export function splitChainTokens(chain: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < chain.length) {
    const start = i;
    for (;;) {
      const char = chain[i];
      if (char === undefined) break;
      if (isBareChar(char)) i += 1;
      else if (char === '"') {
        const end = quotedEnd(chain, i);
        if (end < 0) break;
        i = end;
      } else break;
    }
    if (i > start) tokens.push(chain.slice(start, i));
    else i += 1;
  }
  return tokens;
}

const attributeName = /[a-zA-Z\-_0-9]/;

/**
 * `text.indexOf(needle, from)` for calls whose `from` never decreases: the last answer is reused
 * while it still lies ahead, so a loop over many lines reads the text once rather than once per line.
 */
function forwardFinder(text: string, needle: string): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found === -1 || found >= from) return found;
    found = text.indexOf(needle, from);
    return found;
  };
}

/** The index of the first line terminator at or after `from`, or the text's length. */
function lineEndFrom(text: string, from: number): number {
  let end = from;
  while (end < text.length && !isLineTerminator(text[end])) end += 1;
  return end;
}

/** `split_class_attrs` on one token: [tag and classes, attribute text]. */
export function splitTagAndAttributes(token: string): [string, string] {
  const nextColon = forwardFinder(token, ':');
  let lineStart = 0;
  for (;;) {
    const lineEnd = lineEndFrom(token, lineStart);
    let colon = nextColon(lineStart);
    while (colon >= 0 && colon < lineEnd) {
      let j = colon + 1;
      while (j < lineEnd && attributeName.test(token[j]!)) j += 1;
      if (j < lineEnd && token[j] === '=')
        return [token.slice(lineStart, colon), token.slice(colon + 1, lineEnd)];
      colon = nextColon(j);
    }
    if (lineEnd >= token.length) return [token.slice(lineStart), ''];
    lineStart = lineEnd + 1;
  }
}

/** `parse_attributes`' matches on attribute text: [name, value] pairs. */
export function attributePairs(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  const nextOpening = forwardFinder(text, '="');
  const nextQuote = forwardFinder(text, '"');
  let lineEnd = -1;
  let start = 0;
  while (start < text.length) {
    if (start > lineEnd) lineEnd = lineEndFrom(text, start);
    const equals = nextOpening(start);
    let close = -1;
    if (equals >= 0 && equals < lineEnd) {
      // The value runs to the first `"` not preceded by a backslash; only its last character may be
      // a line terminator (`.*?[^\\]`).
      for (let q = nextQuote(equals + 3); q >= 0 && q <= lineEnd + 1; q = nextQuote(q + 1)) {
        if (text[q - 1] !== '\\') {
          close = q;
          break;
        }
      }
    }
    if (close < 0) {
      start = lineEnd + 1;
      continue;
    }
    pairs.push([text.slice(start, equals), text.slice(equals + 2, close)]);
    start = close + 1;
  }
  return pairs;
}

/** `elements_chain` text → elements in chain order, as PostHog parses it. */
export function chainToElements(chain: string): SerializedElement[] {
  return splitChainTokens(chain).map((text, order) => {
    const [tagAndClasses, attributeText] = splitTagAndAttributes(text);
    const element: SerializedElement = {
      event: null,
      text: null,
      tag_name: null,
      attr_class: null,
      href: null,
      attr_id: null,
      nth_child: null,
      nth_of_type: null,
      attributes: {},
      order,
    };
    if (tagAndClasses) {
      const [tag = '', ...classes] = tagAndClasses.split('.');
      element.tag_name = tag;
      if (classes.length > 0) element.attr_class = classes.filter((name) => name !== '');
    }
    for (const [rawName, value] of attributePairs(attributeText)) {
      const name = rawName.replace(/^:+/, '');
      if (name === 'href') element.href = value;
      else if (name === 'nth-child') element.nth_child = Number.parseInt(value, 10);
      else if (name === 'nth-of-type') element.nth_of_type = Number.parseInt(value, 10);
      else if (name === 'text') element.text = value;
      else if (name === 'attr_id') element.attr_id = value;
      else if (name) element.attributes[name] = value;
    }
    return element;
  });
}
