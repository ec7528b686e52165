/**
 * The texts filters derive from a property value (ASCII-folded, exact-match text, plain text) and
 * its reading as a date, remembered per value for one evaluation. A value is the request's to choose
 * (up to the body limit) and each filter on its key derives the same text: without memory, every
 * condition written on `$current_url` folded the whole URL again, so a 1 MB value cost the conditions
 * × 1 MB. With it, each value is derived once and each filter pays only its own comparison.
 */
export interface ValueTexts {
  readonly folded: Map<unknown, string>;
  readonly exact: Map<unknown, string>;
  readonly plain: Map<unknown, string>;
  /** Parsing a date reads all of its text (`new Date` skips parenthesised comments of any length). */
  readonly dates: Map<unknown, Date | null>;
}

export function valueTexts(): ValueTexts {
  return { folded: new Map(), exact: new Map(), plain: new Map(), dates: new Map() };
}

/** `derive(value)`, once per value while `memo` lives (every time without one). */
export function remembered<T>(
  memo: Map<unknown, T> | undefined,
  value: unknown,
  derive: (value: unknown) => T,
): T {
  if (!memo) return derive(value);
  if (memo.has(value)) return memo.get(value) as T;
  const derived = derive(value);
  memo.set(value, derived);
  return derived;
}
