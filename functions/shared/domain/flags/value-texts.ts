/**
 * The texts filters derive from a property value (ASCII-folded, exact-match text, plain text),
 * remembered per value for one evaluation. A value is the request's to choose (up to the body limit)
 * and each filter on its key derives the same text: without memory, every condition written on
 * `$current_url` folded the whole URL again, so a 1 MB value cost the conditions × 1 MB. With it,
 * each value is derived once and each filter pays only its own comparison.
 */
export interface ValueTexts {
  readonly folded: Map<unknown, string>;
  readonly exact: Map<unknown, string>;
  readonly plain: Map<unknown, string>;
}

export function valueTexts(): ValueTexts {
  return { folded: new Map(), exact: new Map(), plain: new Map() };
}

/** `derive(value)`, once per value while `memo` lives (every time without one). */
export function remembered(
  memo: Map<unknown, string> | undefined,
  value: unknown,
  derive: (value: unknown) => string,
): string {
  if (!memo) return derive(value);
  let text = memo.get(value);
  if (text === undefined) {
    text = derive(value);
    memo.set(value, text);
  }
  return text;
}
