/** An event as Flock stores and serves it, after ingestion's normalisation. */
export interface StoredEvent {
  readonly uuid: string;
  readonly projectId: number;
  readonly event: string;
  readonly distinctId: string;
  readonly properties: Record<string, unknown>;
  /** ISO 8601 UTC with milliseconds: the corrected time the event happened. */
  readonly timestamp: string;
  readonly elementsChain: string;
  /** ISO 8601 UTC: when Flock received it. */
  readonly createdAt: string;
}
