/**
 * The messages a stage could not handle, each with the error that stopped it: the error's name and
 * message become the failure record `dlq list` shows (db/failures.ts), so an operator reads the
 * real cause (`ProvisionedThroughputExceededException`, `ValidationException` …), not a stage name.
 */
export type StageFailures = Map<string, Error>;

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Records `error` for every message in `messageIds` that has no earlier error recorded. */
export function failMessages(failures: StageFailures, messageIds: Iterable<string>, error: unknown): void {
  const cause = asError(error);
  for (const messageId of messageIds) if (!failures.has(messageId)) failures.set(messageId, cause);
}

/** Adds `more` to `into`, keeping the first error recorded for a message. */
export function mergeFailures(into: StageFailures, more: ReadonlyMap<string, Error>): void {
  for (const [messageId, error] of more) if (!into.has(messageId)) into.set(messageId, error);
}
