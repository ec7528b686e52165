import * as z from 'zod';
import type { ProcessedPluginEvent } from '../domain/plugins/types';
import { packMessages } from './pack';

/**
 * What the consumer puts on the exports queue once it stored a message's events: those events as
 * exports receive them (PostHog's ProcessedPluginEvent), for one export plugin config. `source` is
 * the ingest message they were stored from: a redelivery of that message carries the same source, so
 * the exports function knows its events as already claimed by it (functions/exports/claims.ts).
 */
const processedEventSchema = z.object({
  uuid: z.string().min(1),
  event: z.string(),
  distinct_id: z.string(),
  team_id: z.number().int(),
  timestamp: z.string(),
  ip: z.string().nullable(),
  properties: z.record(z.string(), z.unknown()),
  $set: z.record(z.string(), z.unknown()).optional(),
  $set_once: z.record(z.string(), z.unknown()).optional(),
});

export const exportMessageSchema = z.object({
  v: z.literal(1),
  project_id: z.number().int().positive(),
  plugin_config_id: z.number().int().positive(),
  source: z.string().min(1).max(200),
  events: z.array(processedEventSchema).min(1),
});

export type ExportMessage = z.infer<typeof exportMessageSchema>;

export interface ExportEnvelope {
  readonly projectId: number;
  readonly pluginConfigId: number;
  readonly source: string;
}

/**
 * Message bodies for the exports queue, each within SQS's 256 KiB (split as capture splits), and the
 * events no message could hold (an event that grew past 240 KiB in the plugins): not exported.
 */
export function packExportMessages(
  envelope: ExportEnvelope,
  events: readonly ProcessedPluginEvent[],
): { bodies: string[]; tooLarge: number } {
  const { bodies, tooLarge } = packMessages(
    {
      v: 1,
      project_id: envelope.projectId,
      plugin_config_id: envelope.pluginConfigId,
      source: envelope.source,
    },
    events,
  );
  return { bodies, tooLarge: tooLarge.length };
}
