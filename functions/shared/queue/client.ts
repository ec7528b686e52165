import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * One SQS client per container. The endpoint comes from the SDK's configuration (the region on AWS,
 * AWS_ENDPOINT_URL_SQS locally), never from a queue URL's host: on AWS the two agree, and the local
 * emulator's queue URLs name hosts that do not resolve.
 */
export const sqsClient = new SQSClient({ useQueueUrlAsEndpoint: false });
