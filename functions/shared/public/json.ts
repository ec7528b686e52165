/**
 * JSON as PostHog's capture reads it: Python's `json.loads(data, parse_constant=lambda x: None)`, so
 * the non-standard literals `NaN`, `Infinity` and `-Infinity` (which some SDKs emit for bad numbers)
 * read as null, as Django's `load_data_from_request` reads them.
 */

const nonFiniteLiterals = ['NaN', 'Infinity', '-Infinity'] as const;

/**
 * `text` with each non-finite literal outside strings replaced by `null`, in one pass (a regex
 * alternating strings and literals rescans an unterminated string from every quote: quadratic).
 */
function replaceNonFiniteLiterals(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i += 1;
      continue;
    }
    const literal = nonFiniteLiterals.find((candidate) => text.startsWith(candidate, i));
    if (literal) {
      out += `${text.slice(copied, i)}null`;
      i += literal.length;
      copied = i;
    } else i += 1;
  }
  return out + text.slice(copied);
}

/**
 * Plain `JSON.parse` first: the literals are rare, so the scan for them runs only after a failure.
 * Throws the original SyntaxError when the text is not JSON even with the literals replaced.
 */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!text.includes('NaN') && !text.includes('Infinity')) throw error;
    const replaced = replaceNonFiniteLiterals(text);
    try {
      return JSON.parse(replaced);
    } catch {
      throw error;
    }
  }
}
