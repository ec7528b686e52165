import type { StoredEvent } from '../shared/domain/event';
import type { GeoIpLocator } from '../shared/domain/plugins/types';
import type { SeenTodayCache } from './definitions';
import type { GroupTypeRegistry } from './group-types';
import type { IngestedProjects } from './ingested';
import type { PluginConfigs } from './plugin-configs';
import type { PropertyValueSampler } from './property-values';
import type { PropertyDefinitionRecorder } from './property-definitions';

/** The events of one SQS message, tagged with its message id: what every stage after the plugins takes. */
export interface MessageEvents {
  readonly messageId: string;
  readonly projectId: number;
  readonly events: readonly StoredEvent[];
}

export interface ConsumerTables {
  readonly eventsTable: string;
  readonly singleTable: string;
  /** Where stored events of projects with an export config go (exports.ts); unset, none are handed over. */
  readonly exportsQueueUrl?: string;
  /** Where every stored event goes, for the lake (lake.ts); unset, none are handed over. */
  readonly lakeQueueUrl?: string;
  /** The lake hand-off's delay (`lakeQueue.settleSeconds` unless set). */
  readonly lakeSettleSeconds?: number;
}

/** What a container remembers between batches: only facts that cannot become false. */
export interface ConsumerMemory {
  readonly seenToday: SeenTodayCache;
  readonly ingestedProjects: IngestedProjects;
  readonly propertyValues: PropertyValueSampler;
  /** Property definitions and event-property pairs known to exist (property-definitions.ts). */
  readonly propertyDefinitions: PropertyDefinitionRecorder;
  readonly groupTypes: GroupTypeRegistry;
  /** Each project's enabled plugin configs, re-read every 5 s (a cache, not a fact: see plugin-configs.ts). */
  readonly pluginConfigs: PluginConfigs;
  /** The GeoIP plugin's `meta.geoip`: its database is read on the first lookup, then kept. */
  readonly geoip: GeoIpLocator;
}
