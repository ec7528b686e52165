// Every function module parses its environment at import (as at a Lambda cold start): give unit
// tests a complete, fake one. Integration tests talk to a real local server instead.
Object.assign(process.env, {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  SINGLE_TABLE_NAME: 'test-main',
  EVENTS_TABLE_NAME: 'test-events',
  INGEST_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/test-ingest',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
});
