import { RE2JS } from 're2js';

/**
 * User-authored regular expressions (flag conditions, event property filters), compiled by RE2:
 * matching takes time linear in the value, so no pattern can make a request backtrack for minutes,
 * and the syntax is the one PostHog runs them with (its flags service uses Rust's regex crate and
 * its events queries ClickHouse's RE2): inline flags `(?i)`, named groups `(?P<name>…)`, no
 * backreferences or lookaround. A pattern RE2 cannot compile is `null`.
 */
const cacheLimit = 500;
// Patterns repeat across requests on a warm Lambda: compiling each once keeps evaluation cheap.
// Bounded, so user-authored patterns cannot grow it without limit.
const compiled = new Map<string, RE2JS | null>();

export function compileRegex(pattern: string): RE2JS | null {
  const cached = compiled.get(pattern);
  if (cached !== undefined) return cached;
  let regex: RE2JS | null;
  try {
    regex = RE2JS.compile(pattern);
  } catch {
    regex = null;
  }
  if (compiled.size >= cacheLimit) compiled.clear();
  compiled.set(pattern, regex);
  return regex;
}
