/**
 * How many characters of strings `run` reads through `String.prototype` methods (and the regular
 * expressions they call), counted while it runs: a deterministic measure of the work of a parser,
 * where a timing would measure the machine. A search reads from where it starts to where it finds
 * its match (`lastIndexOf` leftwards, `indexOf` rightwards); a method that walks or copies the whole
 * string (`split`, `match`, `replace`, `trim`, iteration …) or a part of it (`slice`) counts that
 * length, and so does a regular expression's `exec` its whole input. Only calls made from JavaScript are seen: Node's own modules use their saved copies.
 */
export function charactersRead<T>(run: () => T): { result: T; characters: number } {
  let characters = 0;
  const proto = String.prototype as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
  const counters: Record<string, (text: string, args: unknown[], found: unknown) => number> = {
    lastIndexOf: (text, [, from], found) => {
      const start = from === undefined ? text.length - 1 : Math.min(Number(from), text.length - 1);
      return (found as number) < 0 ? start + 1 : start - (found as number) + 1;
    },
    indexOf: (text, [, from], found) => {
      const start = from === undefined ? 0 : Math.max(0, Number(from));
      return (found as number) < 0 ? text.length - start : (found as number) - start + 1;
    },
    slice: (_text, _args, found) => (found as string).length,
    substring: (_text, _args, found) => (found as string).length,
    substr: (_text, _args, found) => (found as string).length,
  };
  const wholeString = ['split', 'match', 'matchAll', 'replace', 'replaceAll', 'search', 'includes', 'trim'];
  const names = [...Object.keys(counters), ...wholeString, 'trimStart', 'trimEnd', 'startsWith', 'endsWith'];
  const originals = new Map<string | symbol, (...args: unknown[]) => unknown>();
  for (const name of [...names, Symbol.iterator]) {
    const original = proto[name]!;
    originals.set(name, original);
    proto[name] = function (this: string, ...args: unknown[]) {
      const found = original.apply(this, args);
      const text = String(this);
      const counter = typeof name === 'string' ? counters[name] : undefined;
      characters += counter ? counter(text, args, found) : text.length;
      return found;
    };
  }
  // A regular expression run on a string reads it all (or more, backtracking).
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    characters += String(text).length;
    return exec.call(this, text);
  };
  try {
    return { result: run(), characters };
  } finally {
    RegExp.prototype.exec = exec;
    for (const [name, original] of originals) proto[name] = original;
  }
}
