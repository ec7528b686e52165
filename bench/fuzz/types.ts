/** One request of the corpus, exactly as it goes on the wire. */
export interface FuzzRequest {
  readonly method: string;
  /** Path, already percent-encoded as it should be sent. */
  readonly path: string;
  /** Raw query string without `?` (may be malformed on purpose). */
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** What makes this request hostile, for the report. */
  readonly label: string;
}

/** Real ids and keys the corpus mixes with hostile values. */
export interface Fixtures {
  readonly projectId: number;
  readonly projectApiKey: string;
  readonly personalApiKey: string;
  /** A project of the same organization, deleted before the run: its id and token must fail cleanly. */
  readonly deletedProjectId: number;
  readonly deletedProjectApiKey: string;
  /** A project the sweep's DELETE requests may remove. */
  readonly spareProjectId: number;
  readonly userUuid: string;
  readonly flagId: number;
  readonly flagKey: string;
  readonly eventDefinitionId: string;
  readonly eventUuid: string;
  /** A personal API key made for the run's DELETE requests (never the one the corpus uses). */
  readonly spareKeyId: string;
  /** A flag the destructive phase deletes. */
  readonly spareFlagId: number;
  /** The person of the setup event. */
  readonly personUuid: string;
  /** A dynamic cohort (person properties). */
  readonly cohortId: number;
  /** The organization of the project. */
  readonly organizationId: string;
  /** A disabled S3 Export plugin config (it has a public job). */
  readonly pluginConfigId: number;
  /** An async query's id (`query_status.id`). */
  readonly queryId: string;
}
