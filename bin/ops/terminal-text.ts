/**
 * Text that others chose (event names, distinct ids, an endpoint's error message) made safe to print
 * on an operator's terminal. Escaped, each UTF-16 unit as `\uXXXX`:
 * - C0 controls, DEL and C1 controls: escape sequences (ESC, CSI U+009B, OSC U+009D) can move the
 *   cursor, rewrite earlier lines, retitle the window or hide text; CR and newlines can forge lines;
 * - bidirectional formatting: U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069 reorder what follows
 *   them (Trojan Source, CVE-2021-42574);
 * - invisible or line-breaking format characters: soft hyphen, U+180E, U+200B–U+200D, U+2028/U+2029,
 *   U+2060–U+2064, BOM, interlinear annotations U+FFF9–U+FFFB and the tag characters U+E0000–U+E007F.
 */
const beyondC0 =
  '[\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff\\ufff9-\\ufffb]|\\udb40[\\udc00-\\udc7f]';
const unsafe = new RegExp(`[\\u0000-\\u001f]|${beyondC0}`, 'g');
/** JSON.stringify leaves no C0 control raw inside a string; its own newlines are the layout. */
const unsafeInJson = new RegExp(beyondC0, 'g');

const escapeUnits = (match: string): string =>
  [...Array(match.length).keys()]
    .map((index) => `\\u${match.charCodeAt(index).toString(16).padStart(4, '0')}`)
    .join('');

/** `text` with every unsafe character escaped as `\uXXXX`; the rest unchanged. */
export const printable = (text: string): string => text.replace(unsafe, escapeUnits);

/**
 * `value` as indented JSON whose strings carry no unsafe character: JSON.stringify escapes only C0
 * controls, and `\uXXXX` is a JSON escape, so the text parses back to the same value.
 */
export const printableJson = (value: unknown): string =>
  JSON.stringify(value, null, 2).replace(unsafeInJson, escapeUnits);
