/**
 * Autocapture elements → PostHog's `elements_chain` string (reference §1.8.6, `elementsToString`):
 * per element `tag.class1.class2:` followed by its sorted `key="value"` attributes, elements joined
 * by `;`. posthog-js ≥ 1.100 sends the chain itself as `$elements_chain`, which wins.
 */

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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

/** An element as the events API serves it (reference §6.5). */
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

// PostHog's own patterns (posthog/models/element: chain_to_elements), translated to JavaScript.
const splitChain = /(?:[^\s;"]|"(?:\\.|[^"])*")+/g;
const splitClassAttributes = /(.*?)($|:([a-zA-Z\-_0-9]*=.*))/;
const parseAttributes = /((.*?)="(.*?[^\\])")/g;

/** `elements_chain` text → elements in chain order, as PostHog parses it. */
export function chainToElements(chain: string): SerializedElement[] {
  return (chain.match(splitChain) ?? []).map((text, order) => {
    const [, tagAndClasses = '', , attributeText = ''] = splitClassAttributes.exec(text) ?? [];
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
    for (const match of attributeText.matchAll(parseAttributes)) {
      const name = (match[2] ?? '').replace(/^:+/, '');
      const value = match[3] ?? '';
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
