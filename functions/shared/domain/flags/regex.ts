/**
 * `regex` / `not_regex` patterns. posthog-node runs JavaScript's RegExp on patterns both engines read
 * alike and leaves the rest to the flags service (Rust regex, Python syntax). We run JavaScript's
 * engine on everything, first rewriting the Python/Rust-only spellings PostHog users write — leading
 * inline flags `(?i)` and named groups `(?P<name>…)` — which JavaScript would otherwise reject.
 * A pattern that still doesn't compile matches nothing, for `regex` and `not_regex` alike, as in PostHog.
 */

const leadingFlags = /^\(\?([ims]+)\)/;
const cacheLimit = 500;
// Flag definitions repeat across requests on a warm Lambda: compiling each pattern once keeps
// evaluation of many flags cheap. Bounded, so user-authored patterns can't grow it without limit.
const compiled = new Map<string, RegExp | null>();

function translate(pattern: string): { source: string; flags: string } {
  const flagsMatch = leadingFlags.exec(pattern);
  const flags = flagsMatch?.[1] ?? '';
  const body = flagsMatch ? pattern.slice(flagsMatch[0].length) : pattern;
  const source = body.replace(/(?<!\\)\(\?P</g, '(?<').replace(/(?<!\\)\(\?P=(\w+)\)/g, '\\k<$1>');
  return { source, flags: [...new Set(flags)].join('') };
}

function compile(pattern: string): RegExp | null {
  if (compiled.has(pattern)) return compiled.get(pattern) ?? null;
  let regex: RegExp | null;
  try {
    const { source, flags } = translate(pattern);
    regex = new RegExp(source, flags);
  } catch {
    regex = null;
  }
  if (compiled.size >= cacheLimit) compiled.clear();
  compiled.set(pattern, regex);
  return regex;
}

/** Whether the pattern finds a match anywhere in the value; null when the pattern is invalid. */
export function regexFinds(pattern: string, value: string): boolean | null {
  if (pattern === '') return true;
  const regex = compile(pattern);
  return regex ? regex.test(value) : null;
}
