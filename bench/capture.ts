import '../bin/local/quiet-sdk';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { gunzipSync, gzipSync } from 'node:zlib';
import { benchSetting, report, round, sampleEvent } from './lib';
import { envNames } from '../functions/shared/config';
import { setFunctionEnvironment, setToolEnvironment } from '../bin/environment';

/**
 * Capture handler cost: CPU time per event for a /batch/ of 100 ~1 KB events sent gzip'd (as
 * posthog-node does), next to the floor of gunzip + JSON.parse + JSON.stringify of the same body.
 * The queue and the token lookup are stubbed (aws-sdk-client-mock), so the figure is the handler's
 * own work. Target: ≤ 2.5× the floor.
 */
setToolEnvironment({
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
});
setFunctionEnvironment({
  [envNames.singleTable]: 'bench-main',
  [envNames.ingestQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench-ingest',
});

const rounds = benchSetting('BENCH_ROUNDS', 400, 20);
const token = 'phc_benchbenchbenchbenchbenchbenchbenchbenchben';

function requestEvent(body: Buffer): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /batch/{proxy+}',
    rawPath: '/batch/',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', host: 'api.example.com' },
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: {
        method: 'POST',
        path: '/batch/',
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.1',
        userAgent: 'posthog-node',
      },
      requestId: 'bench',
      routeKey: 'POST /batch/{proxy+}',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}

function cpuMicros(run: () => void | Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  return Promise.resolve(run()).then(() => {
    const used = process.cpuUsage(start);
    return used.user + used.system;
  });
}

async function main(): Promise<void> {
  mockClient(SQSClient).on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  mockClient(DynamoDBDocumentClient)
    .on(GetCommand)
    .resolves({ Item: { project_id: 1, organization: 'o', anonymize_ips: false } });
  const { handler } = (await import('../functions/capture/handler')) as {
    handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<{ statusCode: number }>;
  };
  const body = gzipSync(
    JSON.stringify({
      api_key: token,
      batch: Array.from({ length: 100 }, (_, i) => sampleEvent(i)),
      sent_at: new Date().toISOString(),
    }),
  );
  const event = requestEvent(body);
  const context = { awsRequestId: 'bench' } as Context;

  // Warm up both paths (JIT, caches, the token lookup).
  for (let i = 0; i < 50; i++) {
    await handler(event, context);
    JSON.stringify(JSON.parse(gunzipSync(body).toString('utf8')));
  }
  const handlerMicros = await cpuMicros(async () => {
    for (let i = 0; i < rounds; i++) {
      const response = await handler(event, context);
      if (response.statusCode !== 200) throw new Error(`capture answered ${response.statusCode}`);
    }
  });
  const floorMicros = await cpuMicros(() => {
    for (let i = 0; i < rounds; i++) JSON.stringify(JSON.parse(gunzipSync(body).toString('utf8')));
  });
  const events = rounds * 100;
  const ratio = round(handlerMicros / floorMicros);
  report(
    'capture: handler CPU per event (gzip /batch/ of 100) vs gunzip + JSON.parse + JSON.stringify',
    {
      'handler µs per event': round(handlerMicros / events),
      'floor µs per event': round(floorMicros / events),
      ratio,
    },
    '≤ 2.5×',
    { figure: `${ratio}× (${round(handlerMicros / events)} µs per event)`, met: ratio <= 2.5 },
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
