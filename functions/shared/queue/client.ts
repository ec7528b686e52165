import { SQSClient } from '@aws-sdk/client-sqs';
import { AwsJson1_0Protocol, JsonCodec } from '@aws-sdk/core/protocols';

/**
 * SQS's JSON protocol with the SDK's `JsonCodec`, which writes a request's strings with the native
 * `JSON.stringify`. The client's default codec (`JsonCodec2` in `@aws-sdk/core/protocols`) copies
 * every character of a string into a buffer in a JavaScript loop: a capture message of 100 events
 * (about 94 KB) cost the client a millisecond more CPU that way. The settings (`timestampFormat`,
 * `jsonName`) are the ones `AwsJsonRpcProtocol` gives its default codec; the client still passes
 * its own `protocolSettings` (namespace, error registries, awsQueryCompatible) to this class.
 */
class NativeJsonProtocol extends AwsJson1_0Protocol {
  constructor(settings: ConstructorParameters<typeof AwsJson1_0Protocol>[0]) {
    super({
      ...settings,
      jsonCodec: new JsonCodec({ timestampFormat: { useTrait: true, default: 7 }, jsonName: false }),
    });
  }
}

/**
 * One SQS client per container. The endpoint comes from the SDK's configuration (the region on AWS,
 * AWS_ENDPOINT_URL_SQS locally), never from a queue URL's host: on AWS the two agree, and the local
 * emulator's queue URLs name hosts that do not resolve.
 *
 * `cacheMiddleware`: the SDK resolves the middleware stack once per command class instead of on every
 * call (about 100 µs of CPU per call). Middleware added to `middlewareStack` after a command's first
 * call is then ignored for that command: add it when the module loads (the local fault fixtures do).
 */
export const sqsClient = new SQSClient({
  useQueueUrlAsEndpoint: false,
  protocol: NativeJsonProtocol,
  cacheMiddleware: true,
});

/*
 * The SDK's logger middleware builds a redacted copy of every request and response for the client's
 * logger even when that logger is the default no-op one (see db/client.ts); about 40 µs per call.
 */
sqsClient.middlewareStack.remove('loggerMiddleware');
