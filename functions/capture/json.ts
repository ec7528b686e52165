/**
 * JSON as PostHog's capture reads it: Python's `json.loads(data, parse_constant=lambda x: None)`, so
 * the non-standard literals `NaN`, `Infinity` and `-Infinity` (which some SDKs emit for bad numbers)
 * read as null (reference §1.2 step 5).
 */

/** A JSON string, or (group 1) one of the literals outside any string. */
const stringOrNonFiniteLiteral = /"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)/g;

/**
 * Plain `JSON.parse` first: the literals are rare, so the scan for them runs only after a failure.
 * Throws the original SyntaxError when the text is not JSON even with the literals replaced.
 */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!text.includes('NaN') && !text.includes('Infinity')) throw error;
    const replaced = text.replace(stringOrNonFiniteLiteral, (match, literal: string | undefined) =>
      literal ? 'null' : match,
    );
    try {
      return JSON.parse(replaced);
    } catch {
      throw error;
    }
  }
}
