/**
 * What one project's cohorts may cost. A cohort naming another evaluates the other's whole tree in
 * place, so nesting multiplies: a cohort of 200 references to a cohort of 200 references, four levels
 * deep, is 200⁴ filters for anyone who expands it (posthog-node's local evaluation does, with no
 * memory of what it already matched). Writes are refused beyond these bounds; evaluation remembers
 * each cohort's answer per person and stops at a step budget, for what was stored before them.
 */
export const cohortLimits = {
  /**
   * Filters and groups of a cohort (or of the cohorts a flag names) once every nested cohort is
   * written out in place, each reference counted as often as it is named.
   */
  expandedSize: 10_000,
  /** Live dynamic cohorts in one project: each is recalculated every 15 minutes. */
  dynamicPerProject: 500,
} as const;

/**
 * Groups and filters one evaluation of a flag (its cohorts), or of one person in a calculation, may
 * visit. Within the cap nothing reaches it: remembered cohorts make an evaluation at most as large
 * as the expanded definition.
 */
export const cohortEvaluationSteps = cohortLimits.expandedSize;
