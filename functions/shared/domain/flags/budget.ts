/** The evaluation took more steps than its budget: the flag fails (or the calculation does). */
export class EvaluationBudgetError extends Error {
  constructor(readonly steps: number) {
    super(`cohort evaluation exceeded its budget of ${steps} steps`);
    this.name = 'EvaluationBudgetError';
  }
}

/** Counts the groups and filters one evaluation visits, and throws once it visits more than `steps`. */
export class StepBudget {
  private left: number;

  constructor(readonly steps: number) {
    this.left = steps;
  }

  spend(): void {
    if (--this.left < 0) throw new EvaluationBudgetError(this.steps);
  }
}
