import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/capture/handler';
import { logger } from '../../../functions/shared/logger';
import { captureLimits } from '../../../functions/shared/queue/definitions';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';
import type { HttpEvent } from '../../../functions/shared/http/types';
import { apiGatewayEvent, invoke } from './events';
import { ddb, givenProjectToken, projectItem, resetMocks, sqs, tokenLookup, uniqueToken } from './mocks';

/** What capture tells ops: its EMF metrics and its log lines, for known requests. */
describe('capture: metrics and logs', () => {
  let emf: EmfCapture;
  let token: string;

  beforeEach(() => {
    resetMocks();
    token = uniqueToken();
    givenProjectToken(token, projectItem({ project_id: 42 }));
    emf = captureEmf();
  });
  afterEach(() => emf.restore());

  const batch = (events: unknown[]) =>
    apiGatewayEvent({ path: '/batch/', body: JSON.stringify({ api_key: token, batch: events }) });

  it('counts received, dropped (invalid) and queued events, per project too, and the latency', async () => {
    // Prepare: three events, one without a distinct id (dropped, as PostHog drops it).
    const request = batch([
      { event: 'a', distinct_id: 'u1' },
      { event: 'b', distinct_id: 'u2' },
      { event: 'c', properties: {} },
    ]);

    // Act
    const response = await invoke(handler, request);

    // Assess
    expect(response.statusCode).toBe(200);
    expect(emf.total('EventsReceived')).toBe(3);
    expect(emf.total('EventsReceived', { project: '42' })).toBe(3);
    expect(emf.total('EventsDropped', { reason: 'invalid' })).toBe(1);
    expect(emf.total('EventsQueued')).toBe(2);
    expect(emf.values('CaptureLatency')).toHaveLength(1);
    expect(emf.values('CaptureLatency')[0]).toBeGreaterThan(0);
    expect(emf.total('HttpServerErrors')).toBe(0);
  });

  it('counts an event too large to store as dropped (too_large), and queues the rest', async () => {
    // Act
    const response = await invoke(
      handler,
      batch([
        { event: 'a', distinct_id: 'u1' },
        { event: 'big', distinct_id: 'u1', properties: { blob: 'x'.repeat(captureLimits.maxEventBytes) } },
      ]),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    expect(emf.total('EventsDropped', { reason: 'too_large' })).toBe(1);
    expect(emf.total('EventsQueued')).toBe(1);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });

  it('counts the messages SQS refused, and queues nothing it did not', async () => {
    // Prepare
    sqs.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }],
    });

    // Act
    const response = await invoke(handler, batch([{ event: 'a', distinct_id: 'u1' }]));

    // Assess
    expect(response.statusCode).toBe(503);
    expect(emf.total('QueueSendFailures')).toBe(1);
    expect(emf.total('HttpServerErrors')).toBe(1);
    expect(emf.total('EventsQueued')).toBe(0);
  });

  /** The error lines logged while `requests` are invoked in turn, parsed. */
  const errorLinesOf = async (...requests: HttpEvent[]): Promise<Record<string, unknown>[]> => {
    const lines: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    // The middleware puts the level back to the configured one (SILENT) on every invocation but the
    // first (Powertools' debug sampling): keep ERROR on for these.
    const sampling = jest.spyOn(logger, 'refreshSampleRateCalculation').mockImplementation(() => undefined);
    logger.setLogLevel('ERROR');
    try {
      for (const request of requests) expect((await invoke(handler, request)).statusCode).toBe(503);
    } finally {
      logger.setLogLevel('SILENT');
      sampling.mockRestore();
      stderr.mockRestore();
    }
    expect(lines.join('')).not.toContain(token);
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  it('logs with the Lambda context and API Gateway request id on the line, and never the key', async () => {
    // Prepare: the token lookup fails, which capture logs before answering 503.
    ddb.on(GetCommand, tokenLookup(token)).rejects(new Error('DynamoDB is down'));

    // Act
    const logged = await errorLinesOf(batch([{ event: 'a', distinct_id: 'u1' }]));

    // Assess
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'Could not resolve the project of a public request',
        function_request_id: 'aws-request-1',
        function_name: 'flock-capture',
        cold_start: expect.any(Boolean) as unknown,
        correlation_id: 'request-1',
      }),
    ]);
  });

  it("gives each invocation's lines its own correlation id, none where API Gateway sent none", async () => {
    // Prepare: two requests with their own API Gateway ids, then one without (a direct invocation).
    ddb.on(GetCommand, tokenLookup(token)).rejects(new Error('DynamoDB is down'));
    const withId = (requestId: string | undefined): HttpEvent => {
      const event = batch([{ event: 'a', distinct_id: 'u1' }]);
      return { ...event, requestContext: { ...event.requestContext, requestId: requestId! } };
    };

    // Act
    const logged = await errorLinesOf(withId('api-1'), withId('api-2'), withId(undefined));

    // Assess
    expect(logged.map((line) => line.correlation_id)).toEqual(['api-1', 'api-2', undefined]);
  });

  it("writes the invocation's own metrics in one line per invocation, errors included", async () => {
    // Prepare: the queue takes the first request's events and refuses the second's (503).
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [] })
      .resolves({ Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });
    const invocationLines = () =>
      emf.blobs.filter((blob) => blob._aws.CloudWatchMetrics[0]!.Dimensions[0]!.join() === 'service');

    // Act
    await invoke(handler, batch([{ event: 'a', distinct_id: 'u1' }]));
    const afterFirst = invocationLines().length;
    await invoke(handler, batch([{ event: 'a', distinct_id: 'u1' }]));

    // Assess
    expect(afterFirst).toBe(1);
    expect(invocationLines()).toHaveLength(2);
    expect(emf.total('HttpServerErrors')).toBe(1);
  });
});
