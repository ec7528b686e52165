import type { SQSBatchResponse } from 'aws-lambda';

/**
 * A batch whose every record failed, thrown instead of answered. The SQS event source takes a
 * partial batch response listing every item as a successful invocation: Lambda would neither back off
 * nor count an error, and an alarm on the function's Errors would stay silent while nothing is
 * stored. Thrown, the whole batch returns to the queue (each message's receive count grows, and the
 * redrive policy moves it to the DLQ in the end), Lambda counts an error and slows its polling.
 * Named and worded as Powertools' batch processor names its own (`@aws-lambda-powertools/batch`
 * `FullBatchFailureError`), which throws in the same case.
 */
export class FullBatchFailureError extends Error {
  override name = 'FullBatchFailureError';

  constructor(readonly failedRecords: number) {
    super(`All ${failedRecords} records failed processing. Their errors are logged separately.`);
  }
}

/** `response`, or a FullBatchFailureError when it lists every one of the batch's records. */
export function failWholeBatchIfEveryRecordFailed(
  recordCount: number,
  response: SQSBatchResponse,
): SQSBatchResponse {
  const failed = response.batchItemFailures.length;
  if (recordCount > 0 && failed >= recordCount) throw new FullBatchFailureError(failed);
  return response;
}
