import type { SQSRecord } from 'aws-lambda';

/** How many times SQS has delivered the record (Lambda always sets it; a hand-built record may not). */
export const receiveCountOf = (record: SQSRecord): number =>
  Number((record.attributes as Partial<SQSRecord['attributes']> | undefined)?.ApproximateReceiveCount) || 1;
