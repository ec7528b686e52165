import * as z from 'zod';
import type { Group, GroupListingStart } from '../shared/db/groups';
import { groupsOfType, readGroup } from '../shared/db/groups';
import { readGroupTypeMapping } from '../shared/db/group-types';
import { NotFoundError, ValidationError } from '../shared/http/errors';
import { requestUrl } from '../shared/http/pagination';
import { parseQuery, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import type { HttpEvent } from '../shared/http/types';
import type { Cursor } from './page';
import { groupsFindQuerySchema, groupsListQuerySchema } from './groups-query';
import { decodeCursor, encodeCursor, maxPageBytes, maxScanned } from './page';

/**
 * PostHog's groups API (posthog/api/group.py): a project's groups of one type, newest first by
 * cursor (`CursorPagination`, 100 a page, `search` over the key and the properties), one group by
 * type and key (`find`), and the group types (`groups_types`). Groups are stored by type name
 * (db/groups.ts); `group_type_index` names the type through the project's group-type mapping.
 */

/** PostHog's `CursorPagination` page size for groups. */
const pageSize = 100;

/** A group key is at most 1 KB in a key, so its cursor position (with the time) fits in this. */
const maxCursorPosition = 1_200;

/** PostHog's `GroupSerializer`. */
export const serializeGroup = (group: Group, index: number) => ({
  group_type_index: index,
  group_key: group.groupKey,
  group_properties: group.properties,
  created_at: group.createdAt,
});

/** The type name of a group type index, or undefined when the project has none there. */
async function groupTypeOf(tableName: string, projectId: number, index: number) {
  const mapping = await readGroupTypeMapping(tableName, projectId);
  return Object.hasOwn(mapping, String(index)) ? mapping[String(index)] : undefined;
}

const positionOf = (group: GroupListingStart): string => JSON.stringify([group.createdAt, group.groupKey]);

const positionSchema = z.tuple([z.string().min(1), z.string().min(1)]);

function startOf(cursor: Cursor): GroupListingStart {
  try {
    const [createdAt, groupKey] = positionSchema.parse(JSON.parse(cursor.position));
    return { createdAt, groupKey };
  } catch {
    throw new ValidationError('invalid_input', 'Invalid cursor.', 'cursor');
  }
}

/** What PostHog's `group_key__icontains | group_properties__icontains` keeps. */
const matchesSearch = (group: Group, search: string): boolean =>
  group.groupKey.toLowerCase().includes(search) ||
  JSON.stringify(group.properties).toLowerCase().includes(search);

interface GroupsPage {
  /** Newest first. */
  readonly groups: Group[];
  readonly next?: Cursor;
  readonly previous?: Cursor;
}

/**
 * One page from a cursor: `before` (or none) goes older, `after` newer. A search reads on until the
 * page is full or `maxScanned` groups were examined, then stops with a cursor where it stopped; a
 * page also ends at `maxPageBytes` of properties (a group may hold 300 KB), so a request stays bounded.
 */
async function readGroupsPage(
  tableName: string,
  projectId: number,
  groupType: string,
  search: string | undefined,
  cursor: Cursor | undefined,
): Promise<GroupsPage> {
  const older = cursor?.direction !== 'after';
  const start = cursor && startOf(cursor);
  const kept: Group[] = [];
  let bytes = 0;
  let scanned = 0;
  let last: Group | undefined;
  let more = false;
  const groups = groupsOfType(tableName, projectId, groupType, {
    older,
    ...(start ? { start } : {}),
    pageSize: search ? 1_000 : pageSize + 1,
  });
  for await (const group of groups) {
    if (kept.length === pageSize || scanned === maxScanned || bytes >= maxPageBytes) {
      more = true;
      break;
    }
    scanned += 1;
    last = group;
    if (search !== undefined && !matchesSearch(group, search)) continue;
    kept.push(group);
    bytes += Buffer.byteLength(JSON.stringify(group.properties)) + Buffer.byteLength(group.groupKey);
  }
  const onward = more && last ? positionOf(last) : undefined;
  // The way back starts at the first group kept (or where this page started).
  const firstKept = kept[0];
  const back = firstKept ? positionOf(firstKept) : cursor?.position;
  if (older) {
    return {
      groups: kept,
      ...(onward ? { next: { direction: 'before', position: onward } } : {}),
      ...(cursor && back ? { previous: { direction: 'after', position: back } } : {}),
    };
  }
  return {
    groups: kept.reverse(),
    ...(onward ? { previous: { direction: 'after', position: onward } } : {}),
    ...(back ? { next: { direction: 'before', position: back } } : {}),
  };
}

function envelope(event: HttpEvent, page: GroupsPage, index: number) {
  const link = (cursor: Cursor | undefined) =>
    cursor ? requestUrl(event, { cursor: encodeCursor(cursor) }) : null;
  return {
    next: link(page.next),
    previous: link(page.previous),
    results: page.groups.map((group) => serializeGroup(group, index)),
  };
}

/** `GET /api/projects/:project_id/groups/?group_type_index=N`: the type's groups, newest first. */
export const listGroups = projectRoute(async ({ singleTable, event, project }) => {
  const query = parseQuery(event, groupsListQuerySchema);
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, maxCursorPosition);
  const groupType = await groupTypeOf(singleTable, project.id, query.group_type_index);
  const search = query.search?.trim().toLowerCase() || undefined;
  const page = groupType
    ? await readGroupsPage(singleTable, project.id, groupType, search, cursor)
    : { groups: [] };
  return json(200, envelope(event, page, query.group_type_index));
});

/** `GET /api/projects/:project_id/groups/find/?group_type_index=N&group_key=K`: one group, or 404. */
export const findGroup = projectRoute(async ({ singleTable, event, project }) => {
  const query = parseQuery(event, groupsFindQuerySchema);
  const groupType = await groupTypeOf(singleTable, project.id, query.group_type_index);
  const group = groupType && (await readGroup(singleTable, project.id, groupType, query.group_key, false));
  if (!group) throw new NotFoundError();
  return json(200, serializeGroup(group, query.group_type_index));
});

/** PostHog's `GroupTypeSerializer` (Flock keeps no display names: they are null). */
export const serializeGroupType = (index: number, groupType: string) => ({
  group_type: groupType,
  group_type_index: index,
  name_singular: null,
  name_plural: null,
});

/** `GET /api/projects/:project_id/groups_types/`: the project's group types, by index (no paging). */
export const listGroupTypes = projectRoute(async ({ singleTable, project }) => {
  const mapping = await readGroupTypeMapping(singleTable, project.id);
  const types = Object.entries(mapping)
    .map(([index, groupType]) => serializeGroupType(Number(index), groupType))
    .sort((a, b) => a.group_type_index - b.group_type_index);
  return json(200, types);
});
