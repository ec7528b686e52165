import { createRequire } from 'node:module';

/**
 * dynalite 4 reads LevelDB through streams that end by calling `iterator.return()`, a method
 * abstract-level's iterators do not have (they have `close()`). So no iterator a Query or Scan opens
 * is ever closed: each keeps its LevelDB snapshot (and the memtables and files it pins) alive, and
 * the resident memory of `npm start` grows with every read, about 1 GB an hour under steady traffic
 * (bench/soak). Giving the iterators the `return()` dynalite calls closes each one when its stream
 * ends or is destroyed.
 *
 * The iterator classes are reached the way dynalite reaches them (dynalite → level → classic-level /
 * memory-level → abstract-level), so the patch lands on the copy dynalite uses.
 */

interface IteratorPrototype {
  return?: (this: { close(): Promise<void> }) => Promise<void>;
  close(): Promise<void>;
}
interface IteratorClasses {
  readonly AbstractLevel: { prototype: ResourceOwner };
  readonly AbstractIterator: { prototype: IteratorPrototype };
  readonly AbstractKeyIterator: { prototype: IteratorPrototype };
  readonly AbstractValueIterator: { prototype: IteratorPrototype };
}

/** A database's open iterators (and other resources) are attached to it until they close. */
export interface ResourceOwner {
  attachResource(resource: unknown): void;
  detachResource(resource: unknown): void;
}

/** abstract-level as dynalite's own LevelDB binding loads it. */
export function dynaliteAbstractLevel(): IteratorClasses {
  const fromDynalite = createRequire(require.resolve('dynalite'));
  const fromLevel = createRequire(fromDynalite.resolve('level'));
  const fromClassicLevel = createRequire(fromLevel.resolve('classic-level'));
  return fromClassicLevel('abstract-level') as IteratorClasses;
}

let patched = false;

/** Idempotent: gives every abstract-level iterator class a `return()` that closes the iterator. */
export function closeDynaliteIterators(): void {
  if (patched) return;
  const classes = dynaliteAbstractLevel();
  for (const iteratorClass of [
    classes.AbstractIterator,
    classes.AbstractKeyIterator,
    classes.AbstractValueIterator,
  ]) {
    if (typeof iteratorClass.prototype.return === 'function') continue;
    iteratorClass.prototype.return = function closeOnReturn() {
      return this.close();
    };
  }
  patched = true;
}
