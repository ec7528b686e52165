import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { keys } from './keys';
import type { TaggedPut } from './operations';
import { batchPutAll } from './operations';

/**
 * Plugin log entries (`posthog/api/plugin_log_entry.py`): one item per entry in its config's partition, sorted by
 * `<timestamp>#<id>` so a Query read backwards gives them newest first. Entries expire after
 * `pluginLogRetentionDays` (the table's TTL attribute `expires`); reads also skip entries past it, as
 * DynamoDB may take a while to delete them (and the local emulator never does).
 */

export type PluginLogSource = 'SYSTEM' | 'PLUGIN' | 'CONSOLE';
export const pluginLogTypes = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'] as const;
export type PluginLogEntryType = (typeof pluginLogTypes)[number];

export interface PluginLogEntry {
  id: string;
  team_id: number;
  plugin_id: number;
  plugin_config_id: number;
  /** ISO 8601 (`toISOString`), so the sort key orders entries in time. */
  timestamp: string;
  source: PluginLogSource;
  type: PluginLogEntryType;
  message: string;
  instance_id: string;
}

export const pluginLogRetentionDays = 7;
const retentionMs = pluginLogRetentionDays * 86_400_000;
/** Messages are capped where they are stored: a plugin's console can print anything. */
const maxMessageLength = 4_000;

/** The item of an entry, for `batchPutAll` (tagged with whoever must hear of a failed write). */
export function pluginLogPut(entry: PluginLogEntry, tag: string): TaggedPut {
  const message = entry.message.slice(0, maxMessageLength);
  return {
    item: {
      PK: keys.pluginLogPartition(entry.team_id, entry.plugin_config_id),
      SK: keys.pluginLogSortKey(entry.timestamp, entry.id),
      ...entry,
      message,
      message_lower: message.toLowerCase(),
      expires: Math.floor((Date.parse(entry.timestamp) + retentionMs) / 1000),
    },
    tag,
  };
}

/** Writes entries; returns the tags of those that could not be written. */
export async function putPluginLogEntries(
  tableName: string,
  puts: readonly TaggedPut[],
): Promise<Map<string, Error>> {
  return batchPutAll(tableName, puts);
}

export interface PluginLogFilter {
  /** Only entries strictly after / before these instants (ISO 8601). */
  readonly after?: Date;
  readonly before?: Date;
  /** Case-insensitive substring of the message. */
  readonly search?: string;
  /** Only these types; all when empty. */
  readonly types: readonly PluginLogEntryType[];
}

export interface PluginLogPage {
  readonly entries: PluginLogEntry[];
  /** Entries matching in all, or null when more than `maxExamined` entries would have to be read. */
  readonly count: number | null;
}

/** How many stored entries one request reads at most: a busy failing plugin can log many. */
export const maxExamined = 5_000;

/** `<ts>#` sorts before every `<ts>#<uuid>`, `<ts>#~` after every one: strict bounds on time. */
const lowerBound = (after: Date): string => keys.pluginLogSortKey(after.toISOString(), '~');
const upperBound = (before: Date): string => keys.pluginLogSortKey(before.toISOString(), '');

/** The last instant whose ISO text has a four-digit year: later ones start with `+` and sort first. */
const latest = new Date('9999-12-31T23:59:59.999Z');

function queryOf(tableName: string, projectId: number, configId: number, filter: PluginLogFilter, now: Date) {
  const cutoff = new Date(now.getTime() - retentionMs);
  const after = filter.after && filter.after > cutoff ? filter.after : cutoff;
  const before = filter.before ?? latest;
  const conditions: string[] = [];
  const values: Record<string, unknown> = {
    ':pk': keys.pluginLogPartition(projectId, configId),
    ':from': lowerBound(after),
    ':to': upperBound(before),
  };
  const names: Record<string, string> = {};
  if (filter.types.length > 0) {
    names['#type'] = 'type';
    const placeholders = filter.types.map((type, i) => {
      values[`:t${i}`] = type;
      return `:t${i}`;
    });
    conditions.push(`#type IN (${placeholders.join(', ')})`);
  }
  if (filter.search) {
    values[':search'] = filter.search.toLowerCase();
    conditions.push('contains(message_lower, :search)');
  }
  const input: QueryCommandInput = {
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
    ScanIndexForward: false,
  };
  return input;
}

function entryOf(item: Record<string, unknown>): PluginLogEntry {
  return {
    id: String(item.id),
    team_id: Number(item.team_id),
    plugin_id: Number(item.plugin_id),
    plugin_config_id: Number(item.plugin_config_id),
    timestamp: String(item.timestamp),
    source: item.source as PluginLogSource,
    type: item.type as PluginLogEntryType,
    message: String(item.message),
    instance_id: String(item.instance_id),
  };
}

/**
 * One page of a config's entries, newest first, `offset`/`limit` applied once (PostHog applies its
 * limit twice, `posthog/models/plugin.py` `fetch_plugin_log_entries`: Flock does not copy that), and how many match in all. Reads at most
 * `maxExamined` stored entries, whatever the offset.
 */
export async function readPluginLogs(
  tableName: string,
  projectId: number,
  configId: number,
  filter: PluginLogFilter,
  page: { readonly offset: number; readonly limit: number },
  now: Date = new Date(),
): Promise<PluginLogPage> {
  const input = queryOf(tableName, projectId, configId, filter, now);
  const values = input.ExpressionAttributeValues!;
  // DynamoDB refuses a BETWEEN whose bounds are reversed: such a window (before ≤ after, or before
  // the retention cut-off) holds nothing.
  if (String(values[':from']) > String(values[':to'])) return { entries: [], count: 0 };
  const entries: PluginLogEntry[] = [];
  let matched = 0;
  let examined = 0;
  for await (const result of paginateQuery({ client: documentClient, pageSize: 1_000 }, input)) {
    examined += result.ScannedCount ?? 0;
    for (const item of result.Items ?? []) {
      if (matched >= page.offset && matched < page.offset + page.limit) entries.push(entryOf(item));
      matched++;
    }
    if (examined >= maxExamined && result.LastEvaluatedKey) return { entries, count: null };
  }
  return { entries, count: matched };
}
