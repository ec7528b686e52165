/**
 * Whether a text contains any of a list of substrings (`icontains_multi`), in time linear in the text
 * and the substrings together. Searching for each substring in turn costs their number times the
 * text: a member's filter of 1,000 substrings such as `aaaaaaaab` against a person's 160 KB property
 * of `a`s took half a second of CPU for one person. Past a few substrings they are searched at once,
 * with an Aho–Corasick automaton over UTF-16 code units, built once per list.
 */

interface State {
  readonly next: Map<number, State>;
  fail: State | undefined;
  /** A substring ends here, or at a state its failure links reach. */
  end: boolean;
}

const newState = (): State => ({ next: new Map(), fail: undefined, end: false });

class Automaton {
  private readonly root = newState();

  constructor(needles: readonly string[]) {
    for (const needle of needles) {
      let state = this.root;
      for (let i = 0; i < needle.length; i++) {
        const unit = needle.charCodeAt(i);
        let child = state.next.get(unit);
        if (!child) state.next.set(unit, (child = newState()));
        state = child;
      }
      state.end = true;
    }
    // Failure links breadth first: each state's is the longest proper suffix that is also a prefix.
    const queue: State[] = [];
    for (const child of this.root.next.values()) {
      child.fail = this.root;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [unit, child] of state.next) {
        let fail = state.fail;
        while (fail && !fail.next.has(unit)) fail = fail.fail;
        child.fail = fail ? fail.next.get(unit)! : this.root;
        child.end ||= child.fail.end;
        queue.push(child);
      }
    }
  }

  foundIn(text: string): boolean {
    if (this.root.end) return true;
    let state = this.root;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      while (state !== this.root && !state.next.has(unit)) state = state.fail!;
      state = state.next.get(unit) ?? this.root;
      if (state.end) return true;
    }
    return false;
  }
}

/** Up to this many substrings are searched one by one (cheaper than building an automaton). */
const searchedInTurn = 8;

/** A list of substrings, as text, searched for at once. */
export class Needles {
  private automaton: Automaton | undefined;

  constructor(readonly needles: readonly string[]) {}

  /** Whether `text` contains any of the needles. */
  foundIn(text: string): boolean {
    if (this.needles.length <= searchedInTurn) return this.needles.some((needle) => text.includes(needle));
    this.automaton ??= new Automaton(this.needles);
    return this.automaton.foundIn(text);
  }
}

/** The needles of the lists seen, by list: a filter's list meets every person it is matched with. */
const seen = new WeakMap<readonly unknown[], Needles>();

/**
 * The needles of a filter's list, each item as `textOf` gives it; kept while the list lives (filter
 * definitions are not changed once read).
 */
export function needlesOf(list: readonly unknown[], textOf: (item: unknown) => string): Needles {
  let needles = seen.get(list);
  if (!needles) seen.set(list, (needles = new Needles(list.map(textOf))));
  return needles;
}
