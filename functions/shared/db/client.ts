import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One document client per container. The endpoint comes from the SDK's own configuration
 * (AWS_ENDPOINT_URL_DYNAMODB locally), so production code has no local switch.
 */
export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

/*
 * The SDK's logger middleware builds a redacted copy of every request and response for the client's
 * logger (`@aws-sdk/core`, middleware-logger: `outputFilterSensitiveLog` walks each returned item
 * against the operation's schema) even when that logger is the default no-op one, which drops it.
 * No client here has a logger: on a read of a few thousand events that copy was a tenth of the
 * function's time. Errors still reach the caller as they did.
 */
documentClient.middlewareStack.remove('loggerMiddleware');
