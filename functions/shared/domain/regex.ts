import { RE2JS } from 're2js';
import { boundedCache } from '../cache';

/**
 * User-authored regular expressions (flag conditions, event property filters), compiled by RE2:
 * matching takes time linear in the value, so no pattern can make a request backtrack for minutes,
 * and the syntax is the one PostHog runs them with (its flags service uses Rust's regex crate and
 * its events queries ClickHouse's RE2): inline flags `(?i)`, named groups `(?P<name>…)`, no
 * backreferences or lookaround. A pattern RE2 cannot compile is `null`.
 */
// Patterns repeat across requests on a warm Lambda: compiling each once keeps evaluation cheap.
// Bounded, so user-authored patterns cannot grow it without limit. A pattern that does not compile
// is kept as `false`.
const compiled = boundedCache<string, RE2JS | false>({ max: 500 });

export function compileRegex(pattern: string): RE2JS | null {
  const cached = compiled.get(pattern);
  if (cached !== undefined) return cached || null;
  let regex: RE2JS | null;
  try {
    regex = RE2JS.compile(pattern);
  } catch {
    regex = null;
  }
  compiled.set(pattern, regex ?? false);
  return regex;
}
