/**
 * The AWS SDK's event stream support (`@smithy/core/event-streams`), as the functions' bundles have it:
 * none. An esbuild alias (lib/bundle-aliases.ts) puts this module in its place in the deployed bundles
 * and the local server's; the TypeScript sources (the tests, the tools) keep the SDK's own.
 *
 * Event streams carry the payload of a few operations (S3's `SelectObjectContent`, Kinesis'
 * `SubscribeToShard`, Bedrock's streamed responses); no operation a function calls has one
 * (test/unit/bundles/event-streams.test.ts checks every command the functions import). Yet the SDK's
 * protocols `import()` the module for such an operation (`loadEventStreamCapability` in smithy-lang/smithy-typescript,
 * packages/core/src/submodules/protocols/HttpProtocol.ts), and esbuild, to evaluate it lazily, wraps
 * it and every module it imports (most of `@smithy/core`: 150 modules) in functions run on first use:
 * V8 then parses their code twice at every cold start, once to skip it and once to run it.
 *
 * What the S3 client reads from it at construction is kept (`resolveEventStreamSerdeConfig` and the
 * provider of its marshaller, as the SDK defines them); the marshaller, and the serde an event stream
 * operation would load, fail naming the operation's cause instead of sending or reading anything.
 */

const unsupported = (): never => {
  throw new Error(
    "AWS SDK event streams are left out of Flock's function bundles (functions/shared/no-event-streams.ts): " +
      'no operation the functions call has one',
  );
};

/** What an event stream operation's protocol builds to (de)serialize the stream: here, the error. */
export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}

/** The marshaller a client with event stream operations (S3) is configured with; it fails if ever used. */
export const eventStreamSerdeProvider = () => ({ serialize: unsupported, deserialize: unsupported });

/** As `@smithy/core/event-streams` resolves it: the client's configuration gets the provider's marshaller. */
export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (input: T) => unknown }>(
  input: T,
): T & { eventStreamMarshaller: unknown } =>
  Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });
