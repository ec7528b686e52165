import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/capture/handler';
import { logger } from '../../../functions/shared/logger';
import { captureLimits } from '../../../functions/shared/queue/definitions';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';
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

  it('logs with the Lambda and API Gateway request ids on the line, and never the key', async () => {
    // Prepare: the token lookup fails, which capture logs before answering 503.
    ddb.on(GetCommand, tokenLookup(token)).rejects(new Error('DynamoDB is down'));
    const lines: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    logger.setLogLevel('ERROR');

    // Act
    try {
      const response = await invoke(handler, batch([{ event: 'a', distinct_id: 'u1' }]));
      expect(response.statusCode).toBe(503);
    } finally {
      logger.setLogLevel('SILENT');
      stderr.mockRestore();
    }

    // Assess
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'Could not resolve the project of a public request',
        function_request_id: 'aws-request-1',
        api_request_id: 'request-1',
      }),
    ]);
    expect(lines.join('')).not.toContain(token);
  });
});
