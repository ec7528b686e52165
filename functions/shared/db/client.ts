import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentMarshalling } from './marshall';

/**
 * One document client per container. The endpoint comes from the SDK's own configuration
 * (AWS_ENDPOINT_URL_DYNAMODB locally), so production code has no local switch.
 */
export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: documentMarshalling,
});

/**
 * One low-level client per container, for the batch calls paid per event (the consumer's event
 * writes, its read of the events already stored): items marshalled by marshall.ts as the document
 * client would. `cacheMiddleware` resolves the middleware stack once per command class instead of on
 * every call, which the document client refuses (lib-dynamodb binds its marshalling to each command).
 * Middleware added to `middlewareStack` after a command's first call is then ignored for that
 * command: add it when the module loads (the local IAM guard does).
 */
export const lowLevelClient = new DynamoDBClient({ cacheMiddleware: true });

/*
 * The SDK's logger middleware builds a redacted copy of every request and response for the client's
 * logger (`@aws-sdk/core`, middleware-logger: `outputFilterSensitiveLog` walks each returned item
 * against the operation's schema) even when that logger is the default no-op one, which drops it.
 * No client here has a logger: on a read of a few thousand events that copy was a tenth of the
 * function's time. Errors still reach the caller as they did.
 */
documentClient.middlewareStack.remove('loggerMiddleware');
lowLevelClient.middlewareStack.remove('loggerMiddleware');
