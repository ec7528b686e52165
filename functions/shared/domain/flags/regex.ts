import { compileRegex } from '../regex';

/**
 * `regex` / `not_regex` patterns, run by RE2 (see ../regex.ts) as PostHog's flags service runs them
 * with Rust's regex crate. A pattern that doesn't compile matches nothing, for `regex` and
 * `not_regex` alike, as in PostHog.
 */

/** Whether the pattern finds a match anywhere in the value; null when the pattern is invalid. */
export function regexFinds(pattern: string, value: string): boolean | null {
  if (pattern === '') return true;
  const regex = compileRegex(pattern);
  return regex ? regex.test(value) : null;
}
