import type { PropertyGroup } from '../flags/types';
import { cohortIdOf, definitionOf, leavesOf, treeOf } from './filters';

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
  /** Cohort ids its `cohort` filters name. */
  readonly references: readonly number[];
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
  };
}

export class CohortGraph {
  private readonly nodes: Map<number, CohortNode>;

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
