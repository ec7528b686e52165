import { HogQLError } from './errors';

/**
 * The AST of `@posthog/hogql-parser` (PostHog's HogQL grammar, posthog/hogql/ast.py), as its JSON
 * output spells it: each node an object with `node` naming its class, the source offsets in
 * `start`/`end`, and its fields.
 */
export interface AstNode {
  readonly node: string;
  readonly start?: { readonly offset: number };
  readonly end?: { readonly offset: number };
  readonly [field: string]: unknown;
}

/** What a request may make the compiler walk. */
export const hogqlBounds = {
  /**
   * Characters of query text. PostHog's parser takes time in the text's length (and far more in its
   * nesting, bounded below): 3,272 characters of `(a = 'x' or b = 'y') and …` took 1.1 s on a loaded
   * 2-core machine.
   */
  maxQueryLength: 4_000,
  /**
   * Brackets nested in the text, outside strings and comments, checked before parsing: the parser's
   * time grows about fivefold per level of nested calls (`f(f(f(1)))`: 6 levels took 2.2 s, 8 levels
   * 52 s on a loaded 2-core machine; plain parentheses less).
   */
  maxBracketDepth: 5,
  /** Nesting of AST nodes. */
  maxDepth: 64,
  /** AST nodes in all. */
  maxNodes: 5_000,
} as const;

/**
 * Refuses text nesting brackets (`(`, `[`, `{`) deeper than `maxBracketDepth`, before the parser sees
 * it. Quoted strings and identifiers (`'…'`, `"…"`, `` `…` ``, with `\` escapes and doubled quotes)
 * and comments are skipped, so a literal's brackets never count. One linear pass.
 */
export function checkTextBounds(text: string): void {
  if (text.length > hogqlBounds.maxQueryLength)
    throw new HogQLError('hogql_too_large', `Query is longer than ${hogqlBounds.maxQueryLength} characters`);
  let depth = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === "'" || char === '"' || char === '`') {
      index++;
      while (index < text.length) {
        if (text[index] === '\\') index += 2;
        else if (text[index] === char && text[index + 1] === char) index += 2;
        else if (text[index] === char) break;
        else index++;
      }
    } else if (text.startsWith('--', index)) {
      const end = text.indexOf('\n', index);
      index = end === -1 ? text.length : end;
    } else if (text.startsWith('/*', index)) {
      const end = text.indexOf('*/', index + 2);
      index = end === -1 ? text.length : end + 1;
    } else if (char === '(' || char === '[' || char === '{') {
      depth++;
      if (depth > hogqlBounds.maxBracketDepth)
        throw new HogQLError(
          'hogql_too_large',
          `Query nests brackets deeper than ${hogqlBounds.maxBracketDepth} levels`,
        );
    } else if (char === ')' || char === ']' || char === '}') depth = Math.max(0, depth - 1);
    index++;
  }
}

export function isNode(value: unknown): value is AstNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as AstNode).node === 'string'
  );
}

/**
 * Checks the AST's depth and size before anything recurses over it, walking an explicit stack (own
 * keys of the parser's plain objects only), so the compiler's recursion is bounded by `maxDepth`.
 */
export function checkBounds(root: unknown): void {
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    let childDepth = depth;
    if (isNode(value)) {
      nodes += 1;
      childDepth = depth + 1;
      if (childDepth > hogqlBounds.maxDepth)
        throw new HogQLError(
          'hogql_too_large',
          `Query nesting is deeper than ${hogqlBounds.maxDepth} levels`,
        );
      if (nodes > hogqlBounds.maxNodes)
        throw new HogQLError('hogql_too_large', `Query has more than ${hogqlBounds.maxNodes} nodes`);
    }
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) stack.push({ value: child, depth: childDepth });
  }
}

/** Fields every node may carry that say nothing about the query. */
const positional = new Set(['node', 'start', 'end']);

/**
 * Refuses a node with any set field beyond `handled`: a clause or option the compiler does not
 * translate (e.g. `SAMPLE`, `ARRAY JOIN`, `LIMIT BY`) is an error naming it, never silently dropped.
 */
export function expectOnly(node: AstNode, handled: readonly string[]): void {
  for (const [field, value] of Object.entries(node)) {
    if (positional.has(field) || handled.includes(field)) continue;
    if (value === null || value === false || (Array.isArray(value) && value.length === 0)) continue;
    throw new HogQLError('hogql_unsupported', `${node.node}.${field} is not supported`);
  }
}
