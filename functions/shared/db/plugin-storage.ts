import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import type { PluginStorage } from '../domain/plugins/types';
import { documentClient } from './client';
import { keys } from './keys';

/**
 * PostHog's `meta.storage` (its PluginStorage table: a key-value store per plugin config), as one item
 * per key in the config's partition. Values are JSON text.
 *
 * Replays: ingestion may run an event again (SQS redelivers a message whose batch failed later). Each
 * value remembers the event that wrote it, and that event reads the key as unset, so a replayed event
 * sees what it saw the first time: the First Time Event Tracker marks a first event first again
 * rather than "seen before" by itself.
 */

/** Sort keys are at most 1 KB; a plugin's key is a client's event name and distinct id, so long ones are hashed. */
const maxPlainKeyBytes = 512;

function storageKey(key: string): string {
  return Buffer.byteLength(key) <= maxPlainKeyBytes
    ? `K#${key}`
    : `H#${createHash('sha256').update(key).digest('hex')}`;
}

/**
 * The storage of one config as the event `eventUuid` (as captured, before any plugin ran) sees it.
 * A class: ingestion makes one per config and event, and its methods are then shared, not made anew.
 */
class EventPluginStorage implements PluginStorage {
  constructor(
    private readonly tableName: string,
    private readonly configId: number,
    private readonly eventUuid: string,
  ) {}

  async get(key: string, defaultValue: unknown): Promise<unknown> {
    const result = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: keys.pluginStorage(this.configId, storageKey(key)) }),
    );
    const item = result.Item;
    if (!item || item.written_by === this.eventUuid) return defaultValue;
    return JSON.parse(String(item.value)) as unknown;
  }

  async set(key: string, value: unknown): Promise<void> {
    await documentClient.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.pluginStorage(this.configId, storageKey(key)),
          value: JSON.stringify(value ?? null),
          written_by: this.eventUuid,
        },
      }),
    );
  }
}

export function pluginStorageFor(tableName: string, configId: number, eventUuid: string): PluginStorage {
  return new EventPluginStorage(tableName, configId, eventUuid);
}
