import type { PropertyGroup } from '../flags/types';
import { cohortIdOf, definitionOf, leavesOf, nodeCount, treeOf } from './filters';

/**
 * The cohorts of a project as a graph of references: which cohorts each names, which are
 * behavioural (themselves or through a cohort they name), what a flag's cohorts need sent for local
 * evaluation. Pure: built from the cohort records the caller read.
 */

export interface CohortNode {
  readonly id: number;
  readonly name: string | null;
  readonly deleted: boolean;
  readonly isStatic: boolean;
  /** The property tree (filters, or converted groups); undefined for the empty cohort. */
  readonly tree: PropertyGroup | undefined;
  /** Cohort ids its `cohort` filters name, each as often as it is named. */
  readonly references: readonly number[];
  /** Groups and filters of its own tree. */
  readonly ownSize: number;
  /** Whether it has a behavioural filter of its own. */
  readonly ownBehavioral: boolean;
}

export interface CohortLike {
  readonly id: number;
  readonly name: string | null;
  readonly deleted: boolean;
  readonly is_static: boolean;
  readonly filters: unknown;
  readonly groups: readonly unknown[];
}

export function cohortNode(cohort: CohortLike): CohortNode {
  const tree = cohort.is_static ? undefined : treeOf(definitionOf(cohort));
  const leaves = leavesOf(tree);
  return {
    id: cohort.id,
    name: cohort.name,
    deleted: cohort.deleted,
    isStatic: cohort.is_static,
    tree,
    references: leaves.flatMap((leaf) => {
      const id = leaf.type === 'cohort' ? cohortIdOf(leaf.value) : undefined;
      return id === undefined ? [] : [id];
    }),
    ownBehavioral: leaves.some((leaf) => leaf.type === 'behavioral'),
    ownSize: nodeCount(tree),
  };
}

export class CohortGraph {
  private readonly nodes: Map<number, CohortNode>;
  /** `expandedSize` of each cohort computed so far. */
  private readonly sizes = new Map<number, number>();

  constructor(cohorts: readonly CohortLike[]) {
    this.nodes = new Map(cohorts.map((cohort) => [cohort.id, cohortNode(cohort)]));
  }

  get(id: number): CohortNode | undefined {
    return this.nodes.get(id);
  }

  /** `start` and every cohort reachable from it by references (each once; loops tolerated). */
  reachable(start: Iterable<number>): number[] {
    const seen = new Set<number>();
    const stack = [...start];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(this.nodes.get(id)?.references ?? []));
    }
    return [...seen];
  }

  /** The first behavioural cohort among `start` and what they reach. */
  behavioralAmong(start: Iterable<number>): CohortNode | undefined {
    return this.reachable(start)
      .map((id) => this.nodes.get(id))
      .find((node) => node?.ownBehavioral);
  }

  /** Whether following references from `references` leads back to `id`. */
  loopsBackTo(id: number, references: readonly number[]): boolean {
    return this.reachable(references).includes(id);
  }

  /** Cohorts whose tree is evaluated where they are named: live dynamic ones. */
  private evaluable(id: number): CohortNode | undefined {
    const node = this.nodes.get(id);
    return node && !node.deleted && !node.isStatic ? node : undefined;
  }

  /**
   * Groups and filters of the cohort's tree with every live dynamic cohort it names written out in
   * place, as often as it is named: what matching it costs without remembering cohorts (posthog-node's
   * local evaluation). A reference back into a loop counts nothing (loops are refused on write).
   */
  expandedSize(start: number): number {
    const onPath = new Set<number>();
    // Iterative: a long chain of cohorts (stored before chains were bounded) must not overflow the stack.
    const stack = [start];
    while (stack.length > 0) {
      const id = stack[stack.length - 1]!;
      const node = this.evaluable(id);
      if (this.sizes.has(id) || !node) {
        if (!node) this.sizes.set(id, 0);
        stack.pop();
      } else if (!onPath.has(id)) {
        onPath.add(id);
        for (const ref of node.references) if (!this.sizes.has(ref) && !onPath.has(ref)) stack.push(ref);
      } else {
        let size = node.ownSize;
        for (const ref of node.references) size += this.sizes.get(ref) ?? 0;
        this.sizes.set(id, size);
        onPath.delete(id);
        stack.pop();
      }
    }
    return this.sizes.get(start)!;
  }

  /** Live dynamic cohorts whose trees reach `id` through references, `id` itself excluded. */
  reaching(id: number): number[] {
    const namedBy = new Map<number, number[]>();
    for (const node of this.nodes.values())
      if (this.evaluable(node.id))
        for (const ref of new Set(node.references)) {
          let names = namedBy.get(ref);
          if (!names) namedBy.set(ref, (names = []));
          names.push(node.id);
        }
    const seen = new Set<number>();
    const stack = [...(namedBy.get(id) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next) || next === id) continue;
      seen.add(next);
      stack.push(...(namedBy.get(next) ?? []));
    }
    return [...seen];
  }

  /** A copy with one cohort's definition replaced (a PATCH being checked). */
  with(cohort: CohortLike): CohortGraph {
    const graph = new CohortGraph([]);
    for (const [id, node] of this.nodes) graph.nodes.set(id, node);
    graph.nodes.set(cohort.id, cohortNode(cohort));
    return graph;
  }

  /**
   * What local evaluation sends for cohorts (`/flags/definitions?send_cohorts`): every non-static,
   * non-deleted cohort reachable from `referenced`, id → its property tree.
   */
  definitionsFor(referenced: Iterable<number>): Record<string, PropertyGroup> {
    const out: Record<string, PropertyGroup> = {};
    for (const id of this.reachable(referenced)) {
      const node = this.nodes.get(id);
      if (!node || node.deleted || node.isStatic) continue;
      out[String(id)] = node.tree ?? ({} as PropertyGroup);
    }
    return out;
  }

  /** Static, live cohorts reachable from `referenced`: their membership is read per person. */
  staticAmong(referenced: Iterable<number>): number[] {
    return this.reachable(referenced).filter((id) => {
      const node = this.nodes.get(id);
      return node !== undefined && node.isStatic && !node.deleted;
    });
  }
}
