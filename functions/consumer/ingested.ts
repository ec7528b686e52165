import { getProject, markProjectIngestedEvent } from '../shared/db/projects';
import { logger } from '../shared/logger';

/**
 * A project's `ingested_event` flips to true on its first stored event (as PostHog's plugin-server
 * `team-manager.ts` sets it). Once a
 * container knows a project's flag is true it never looks again; otherwise one read, and the
 * conditional write only if the flag is still false. A failure is logged and tried again with the
 * next batch: the flag is onboarding state, not worth retrying events for.
 */
export class IngestedProjects {
  private readonly known = new Set<number>();

  async markIngested(tableName: string, projectIds: Iterable<number>): Promise<void> {
    const unknown = [...new Set(projectIds)].filter((projectId) => !this.known.has(projectId));
    await Promise.all(
      unknown.map(async (projectId) => {
        try {
          const project = await getProject(tableName, projectId);
          if (!project) return; // deleted since capture: nothing to flip
          if (!project.ingested_event) await markProjectIngestedEvent(tableName, projectId);
          this.known.add(projectId);
        } catch (error) {
          logger.warn('Marking the project as having ingested events failed', {
            projectId,
            reason: String(error),
          });
        }
      }),
    );
  }
}
