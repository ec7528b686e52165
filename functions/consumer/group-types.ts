import { maxGroupTypes, putGroupType, readGroupTypeMapping } from '../shared/db/group-types';
import type { StoredEvent } from '../shared/domain/event';
import { logger } from '../shared/logger';
import type { MessageEvents } from './types';

/**
 * Group types as ingestion meets them (PostHog's GroupTypeManager): a type named by an event's
 * `$groups` (`{company: "acme"}`) or by `$groupidentify`'s `$group_type` gets the next free index,
 * up to five per project; group flags name their type by that index. Indexes are claimed with
 * conditional writes, so concurrent consumers never give one index two names. Types known to this
 * container cost nothing; a failed registration is logged and tried again by the next event that
 * names the type (events themselves never wait on it).
 */
export class GroupTypeRegistry {
  private readonly known = new Map<number, Set<string>>();

  async register(tableName: string, messages: readonly MessageEvents[]): Promise<void> {
    const wanted = new Map<number, Set<string>>();
    for (const message of messages) {
      for (const event of message.events) {
        for (const name of groupTypesOf(event)) {
          if (this.known.get(message.projectId)?.has(name)) continue;
          const names = wanted.get(message.projectId) ?? new Set<string>();
          names.add(name);
          wanted.set(message.projectId, names);
        }
      }
    }
    await Promise.all(
      [...wanted].map(([projectId, names]) =>
        this.registerInProject(tableName, projectId, names).catch((error: unknown) => {
          logger.warn('Group types not registered', { projectId, reason: String(error) });
        }),
      ),
    );
  }

  private async registerInProject(
    tableName: string,
    projectId: number,
    names: ReadonlySet<string>,
  ): Promise<void> {
    const known = this.known.get(projectId) ?? new Set<string>();
    this.known.set(projectId, known);
    let mapping = await readGroupTypeMapping(tableName, projectId);
    for (const name of names) {
      for (let attempt = 0; attempt < maxGroupTypes; attempt++) {
        if (Object.values(mapping).includes(name)) {
          known.add(name);
          break;
        }
        const free = Array.from({ length: maxGroupTypes }, (_, index) => index).find(
          (index) => !(String(index) in mapping),
        );
        if (free === undefined) {
          logger.warn('No group type index left', { projectId, groupType: name });
          break;
        }
        // Lost the race for this index: read who took it and try the next one.
        if (!(await putGroupType(tableName, projectId, free, name)))
          mapping = await readGroupTypeMapping(tableName, projectId);
        else mapping = { ...mapping, [String(free)]: name };
      }
    }
  }
}

/** The group type names an event mentions. */
export function groupTypesOf(event: StoredEvent): string[] {
  const names: string[] = [];
  const groups = event.properties.$groups;
  if (groups !== null && typeof groups === 'object' && !Array.isArray(groups))
    names.push(...Object.keys(groups));
  if (event.event === '$groupidentify' && typeof event.properties.$group_type === 'string') {
    names.push(event.properties.$group_type);
  }
  return names.filter((name) => name !== '' && name.length <= 400);
}
