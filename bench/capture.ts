import '../bin/local/quiet-sdk';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync, gzipSync } from 'node:zlib';
import { benchSetting, report, round, sampleEvent } from './lib';
import { envNames } from '../functions/shared/config';
import { setFunctionEnvironment, setToolEnvironment } from '../bin/environment';

/**
 * Capture handler cost: CPU time per event for a /batch/ of 100 ~1 KB events sent gzip'd (as
 * posthog-node does), next to the floor of gunzip + JSON.parse + JSON.stringify of the same body.
 * The queue and the token lookup are stubbed (aws-sdk-client-mock), so the figure is the handler's
 * own work. Target: ≤ 2.5× the floor.
 *
 * Method: handler and floor run in one process, interleaved in rounds of `requestsPerRound`
 * requests each (alternating which goes first), after the same warm-up. Every block of a round
 * starts from the same heap (a full collection, not timed, and the SQS stub's call history
 * cleared, which production does not keep) and ends with a timed young-generation collection, so
 * each side pays for collecting the garbage it left, and none of it spills into the other's block.
 * A round's figure is handler CPU per event ÷ floor CPU per event for the same request
 * (`process.cpuUsage`, user + system, all threads: the collector's helper threads included); the
 * bench reports the median of the rounds' ratios (a burst of other work on the machine lands in a
 * few rounds, and moves the median little) and, beside it, the ratio of the totals.
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

/** Requests each side runs in all (`BENCH_ROUNDS`, its name from when it counted rounds). */
const requests = benchSetting('BENCH_ROUNDS', 400, 20);
const requestsPerRound = 10;

type Collect = (options: { type: 'major' | 'minor'; execution: 'sync' }) => void;
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as Collect;
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

/** CPU time (µs, every thread) of `run`, started on a collected heap, its young garbage collected. */
async function cpuMicros(run: () => void | Promise<void>): Promise<number> {
  collect({ type: 'major', execution: 'sync' });
  const start = process.cpuUsage();
  await run();
  collect({ type: 'minor', execution: 'sync' });
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/** The `q` quantile of `values` (linear between the two nearest ranks); 0.5 is the median. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = sorted[Math.floor(position)]!;
  const above = sorted[Math.ceil(position)]!;
  return below + (above - below) * (position - Math.floor(position));
}

const median = (values: readonly number[]): number => quantile(values, 0.5);

async function main(): Promise<void> {
  const queue = mockClient(SQSClient);
  queue.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
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

  const runHandler = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const response = await handler(event, context);
      if (response.statusCode !== 200) throw new Error(`capture answered ${response.statusCode}`);
    }
  };
  const runFloor = (count: number): void => {
    for (let i = 0; i < count; i++) JSON.stringify(JSON.parse(gunzipSync(body).toString('utf8')));
  };

  // Warm up both paths alike (JIT, caches, the token lookup).
  for (let i = 0; i < 5; i++) {
    await runHandler(10);
    runFloor(10);
  }
  const ratios: number[] = [];
  const handlerPerEvent: number[] = [];
  const floorPerEvent: number[] = [];
  const totals = { handler: 0, floor: 0 };
  for (let done = 0; done < requests; done += requestsPerRound) {
    const count = Math.min(requestsPerRound, requests - done);
    const timeHandler = (): Promise<number> => {
      queue.resetHistory();
      return cpuMicros(() => runHandler(count));
    };
    const timeFloor = (): Promise<number> => cpuMicros(() => runFloor(count));
    let handlerMicros: number;
    let floorMicros: number;
    if (ratios.length % 2 === 0) {
      handlerMicros = await timeHandler();
      floorMicros = await timeFloor();
    } else {
      floorMicros = await timeFloor();
      handlerMicros = await timeHandler();
    }
    handlerPerEvent.push(handlerMicros / (count * 100));
    floorPerEvent.push(floorMicros / (count * 100));
    ratios.push(handlerMicros / floorMicros);
    totals.handler += handlerMicros;
    totals.floor += floorMicros;
  }
  const ratio = round(median(ratios));
  report(
    'capture: handler CPU per event (gzip /batch/ of 100) vs gunzip + JSON.parse + JSON.stringify',
    {
      'handler µs per event (median)': round(median(handlerPerEvent)),
      'floor µs per event (median)': round(median(floorPerEvent)),
      'rounds (requests each)': `${ratios.length} (${requestsPerRound})`,
      'ratio, median of rounds': ratio,
      'ratio, middle half of rounds': `${round(quantile(ratios, 0.25))}–${round(quantile(ratios, 0.75))}`,
      'ratio of the totals': round(totals.handler / totals.floor),
    },
    '≤ 2.5×',
    { figure: `${ratio}× (${round(median(handlerPerEvent))} µs per event)`, met: ratio <= 2.5 },
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
