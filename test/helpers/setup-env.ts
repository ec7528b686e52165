import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envNames } from '../../functions/shared/config';
import { setFunctionEnvironment, setToolEnvironment } from '../../bin/environment';
import { ensureLocalSecretsKey } from '../../functions/shared/secrets/local-cipher';

// Every function module parses its environment at import (as at a Lambda cold start): give unit
// tests a complete, fake one. Integration tests talk to a real local server instead.
setToolEnvironment({
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
});
setFunctionEnvironment({
  [envNames.singleTable]: 'test-main',
  [envNames.eventsTable]: 'test-events',
  [envNames.ingestQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/test-ingest',
  [envNames.exportsQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/test-exports',
  // Plugin config secrets are sealed with the local server's cipher: a key of this test process.
  [envNames.localSecretsKeyFile]: join(tmpdir(), `flock-test-secrets-${process.pid}.key`),
});
ensureLocalSecretsKey(join(tmpdir(), `flock-test-secrets-${process.pid}.key`));

// Functions write their metrics as EMF lines to stdout (as on Lambda); keep them out of test output.
// Tests that assert metrics read them with captureEmf() (test/helpers/emf.ts).
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk: unknown, ...rest: unknown[]) =>
  String(chunk).startsWith('{"_aws"') ? true : (write as (...args: unknown[]) => boolean)(chunk, ...rest);
