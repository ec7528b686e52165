import { envNames, setFunctionEnvironment, setToolEnvironment } from '../../functions/shared/config';

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
});
