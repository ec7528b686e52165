import { forEachLimited } from '../shared/concurrency';
import { toProcessedPluginEvent } from '../shared/domain/plugins/processed-event';
import { s3ExportPlugin } from '../shared/domain/plugins/s3-export';
import type { ProcessedPluginEvent } from '../shared/domain/plugins/types';
import { logger } from '../shared/logger';
import { countMetric, metricNames } from '../shared/metrics';
import { packExportMessages } from '../shared/queue/export-message';
import { sendAll } from '../shared/queue/send';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages } from '../shared/stage-failures';
import type { PluginConfigs } from './plugin-configs';
import type { MessageEvents } from './types';

/** Messages whose events are handed over at once (each costs one or a few SendMessageBatch calls). */
const sendsInFlight = 8;

/**
 * The last stage (PostHog's plugin-server ran `exportEvents` after ingestion): the stored events of each message whose project has an
 * enabled export config go to the exports queue, as exports receive them, tagged with the message
 * they came from. Only messages every earlier stage handled get here, so an event is handed over only
 * once it is stored. A hand-off that fails fails its message: SQS delivers it again, every earlier
 * stage replays to the same state (events are stored by uuid), and the hand-off is tried again; the
 * exports function recognises a second hand-off of the same events (functions/exports/claims.ts).
 * Nothing is ever handed over twice into the export itself, and nothing stored is lost from it.
 */
export async function handToExports(
  queueUrl: string,
  tableName: string,
  configs: PluginConfigs,
  messages: readonly MessageEvents[],
): Promise<StageFailures> {
  const failed: StageFailures = new Map();
  let handedOver = 0;
  await forEachLimited(
    messages.filter((message) => message.events.length > 0),
    sendsInFlight,
    async (message) => {
      try {
        const exportConfig = (await configs.of(tableName, message.projectId)).find(
          (config) => config.plugin.id === s3ExportPlugin.id && config.setup.ok,
        );
        if (!exportConfig) return;
        // A uuid sent twice in one message is stored once (the last one): export it once, as stored.
        const byUuid = new Map<string, ProcessedPluginEvent>();
        for (const event of message.events) byUuid.set(event.uuid, toProcessedPluginEvent(event));
        const { bodies, tooLarge } = packExportMessages(
          { projectId: message.projectId, pluginConfigId: exportConfig.id, source: message.messageId },
          [...byUuid.values()],
        );
        if (tooLarge > 0)
          logger.warn('Events too large for the exports queue are not exported', {
            messageId: message.messageId,
            count: tooLarge,
          });
        if (!(await sendAll(queueUrl, bodies))) throw new Error('The exports queue refused the events');
        handedOver += byUuid.size - tooLarge;
      } catch (error) {
        logger.error('Handing events to the exports queue failed', {
          messageId: message.messageId,
          reason: String(error),
        });
        failMessages(failed, [message.messageId], error);
      }
    },
  );
  countMetric(metricNames.eventsToExport, handedOver);
  return failed;
}
