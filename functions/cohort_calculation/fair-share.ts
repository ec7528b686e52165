import type { DueCohort } from '../shared/db/cohorts';

/**
 * Which due cohorts a run calculates, and in what order: the projects take turns (each project's
 * most overdue cohort first, projects in the order of their most overdue one), so a project with many
 * heavy cohorts gets one turn in each round like any other and cannot hold every slot of a run.
 */
export function fairShare(due: readonly DueCohort[], limit: number): DueCohort[] {
  const byProject = new Map<number, DueCohort[]>();
  const seen = new Set<string>();
  for (const cohort of [...due].sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0))) {
    const key = `${cohort.projectId}#${cohort.cohortId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let queue = byProject.get(cohort.projectId);
    if (!queue) byProject.set(cohort.projectId, (queue = []));
    queue.push(cohort);
  }
  const queues = [...byProject.values()];
  const picked: DueCohort[] = [];
  for (let round = 0; picked.length < limit && queues.some((queue) => queue.length > round); round++)
    for (const queue of queues) {
      const next = queue[round];
      if (next && picked.length < limit) picked.push(next);
    }
  return picked;
}
