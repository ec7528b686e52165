import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { compressToBase64 } from 'lz-string';
import { gzipSync } from 'node:zlib';
import { handler } from '../../../functions/capture/handler';
import { captureLimits } from '../../../functions/shared/queue/definitions';
import { apiGatewayEvent, getDataRequest, invoke, jsJsonRequest, preflightRequest } from './events';
import { freezeTime, givenProjectToken, resetMocks, sentBatches, sqs, uniqueToken } from './mocks';

const origin = 'http://localhost:36749';

const validationError = (code: string, detail: string) => ({
  statusCode: 400,
  body: { type: 'validation_error', code, detail, attr: null },
});

const noData = validationError(
  'no_data',
  'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
);

/** CORS headers every capture response carries for a browser on another origin (what posthog-js needs there). */
const corsFor = (requestOrigin: string) => ({
  'Access-Control-Allow-Origin': requestOrigin,
  'Access-Control-Expose-Headers': 'Retry-After',
});

describe('capture: refused requests and CORS', () => {
  let token: string;

  beforeAll(() => freezeTime());
  afterAll(() => jest.useRealTimers());
  beforeEach(() => {
    resetMocks();
    token = uniqueToken();
    givenProjectToken(token);
  });

  describe('bodies that cannot be decoded (400 invalid_payload, as PostHog’s capture.py answers)', () => {
    it('reports invalid JSON with the parser message', async () => {
      const response = await invoke(
        handler,
        apiGatewayEvent({ path: '/e/', headers: { origin }, body: '{"api_key": nope}' }),
      );

      expect(response).toMatchObject({
        statusCode: 400,
        headers: corsFor(origin),
        body: {
          type: 'validation_error',
          code: 'invalid_payload',
          detail: expect.stringMatching(/^Malformed request data: Invalid JSON: /),
          attr: null,
        },
      });
      expect(sentBatches()).toEqual([]);
    });

    it('refuses JSON nested deeper than 128 levels, which no recursive step could go through', async () => {
      // Prepare: 20k levels overflow JSON.stringify's stack; 128 is the most a payload may nest.
      const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const event = (properties: string) =>
        `{"api_key":"${token}","event":"e","distinct_id":"d","properties":${properties}}`;

      // Act
      const deep = await invoke(handler, apiGatewayEvent({ path: '/e/', body: event(nested(20_000)) }));
      const deepest = await invoke(handler, apiGatewayEvent({ path: '/e/', body: event(nested(127)) }));

      // Assess
      expect(deep).toMatchObject(
        validationError(
          'invalid_payload',
          'Malformed request data: Invalid JSON: nested deeper than 128 levels',
        ),
      );
      expect(deepest).toMatchObject({ statusCode: 200, body: { status: 1 } });
      expect(sentBatches()).toHaveLength(1);
    });

    it('reports a truncated gzip body announced by ?compression=gzip', async () => {
      const truncated = gzipSync('{"event":"e"}').subarray(0, 10);

      const response = await invoke(
        handler,
        apiGatewayEvent({ path: '/track', query: { compression: 'gzip' }, body: truncated }),
      );

      expect(response).toMatchObject(
        validationError(
          'invalid_payload',
          'Malformed request data: Failed to decompress data. unexpected end of file',
        ),
      );
    });

    it('reports a body that is not gzip although Content-Encoding says so', async () => {
      const response = await invoke(
        handler,
        apiGatewayEvent({
          path: '/batch/',
          headers: { 'content-encoding': 'gzip' },
          body: '{"api_key":"x"}',
        }),
      );

      expect(response).toMatchObject(
        validationError(
          'invalid_payload',
          'Malformed request data: Failed to decompress data. incorrect header check',
        ),
      );
    });

    it("reports posthog-js's literal 'undefined' body under gzip-js", async () => {
      const response = await invoke(
        handler,
        apiGatewayEvent({ path: '/e/', query: { compression: 'gzip-js' }, body: 'undefined' }),
      );

      expect(response).toMatchObject(
        validationError(
          'invalid_payload',
          "Malformed request data: data being loaded from the request body for decompression is the literal string 'undefined'",
        ),
      );
    });

    it('reports lz64 data that does not decompress', async () => {
      const response = await invoke(
        handler,
        apiGatewayEvent({ path: '/track', query: { compression: 'lz64' }, body: 'foo' }),
      );

      expect(response).toMatchObject(
        validationError('invalid_payload', 'Malformed request data: Failed to decompress data.'),
      );
    });

    it('reports base64 that does not hold JSON as invalid JSON', async () => {
      const response = await invoke(
        handler,
        getDataRequest(Buffer.from('not json at all').toString('base64')),
      );

      expect(response.body).toMatchObject({
        code: 'invalid_payload',
        detail: expect.stringMatching(/^Malformed request data: Invalid JSON/),
      });
    });
  });

  describe('requests without data (400 no_data)', () => {
    it.each([
      ['GET /e/?data=', () => getDataRequest('')],
      ['GET /e/ without data', () => apiGatewayEvent({ method: 'GET', path: '/e/' })],
      ['POST without a body', () => apiGatewayEvent({ path: '/e/' })],
      ['POST {}', () => jsJsonRequest({})],
      ['POST []', () => jsJsonRequest([])],
      ['POST null', () => apiGatewayEvent({ path: '/e/', body: 'null' })],
      [
        'a form without data',
        () =>
          apiGatewayEvent({
            path: '/e/',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `api_key=${'k'}`,
          }),
      ],
      [
        'lz64-compressed {}',
        () => apiGatewayEvent({ path: '/e/', query: { compression: 'lz64' }, body: compressToBase64('{}') }),
      ],
    ])('answers %s with no_data', async (_case, build) => {
      const response = await invoke(handler, build());

      expect(response).toMatchObject(noData);
    });
  });

  describe('events that make the request invalid (400 invalid_payload)', () => {
    it.each([
      [
        'a string in a bare array',
        [{ event: 'e', properties: { distinct_id: 'd', token: 'T' } }, 'oops'],
        "All events must be dictionaries not 'str'!",
      ],
      [
        'a number in a batch',
        { api_key: 'T', batch: [{ event: 'e', distinct_id: 'd' }, 5] },
        "All events must be dictionaries not 'int'!",
      ],
      [
        'a batch dumped to a JSON string',
        { api_key: 'T', batch: '[{"event":"e"}]' },
        "All events must be dictionaries not 'str'!",
      ],
      [
        'a malformed uuid',
        { api_key: 'T', event: 'e', distinct_id: 'd', uuid: 'not-a-uuid' },
        'Event field "uuid" is not a valid UUID!',
      ],
      [
        'a numeric uuid',
        { api_key: 'T', event: 'e', distinct_id: 'd', uuid: 12 },
        'Event field "uuid" is not a valid UUID!',
      ],
      [
        'properties that are a string',
        { api_key: 'T', event: 'e', distinct_id: 'd', properties: 'x' },
        'Properties must be a JSON object, received str!',
      ],
      [
        'a $snapshot without $snapshot_data',
        { api_key: 'T', event: '$snapshot', distinct_id: 'd', properties: {} },
        '$snapshot events must contain property "$snapshot_data"!',
      ],
    ])('refuses %s and queues nothing', async (_case, payload, reason) => {
      const body = JSON.stringify(payload).replaceAll('"T"', JSON.stringify(token));

      const response = await invoke(handler, apiGatewayEvent({ path: '/batch/', headers: { origin }, body }));

      expect(response).toMatchObject({
        ...validationError('invalid_payload', `Invalid payload: ${reason}`),
        headers: corsFor(origin),
      });
      expect(sentBatches()).toEqual([]);
    });
  });

  describe('queue failures (503 so the SDKs retry)', () => {
    const unableToStore = {
      type: 'server_error',
      code: 'server_error',
      detail:
        'Unable to store event. Please try again. If you are the owner of this app you can check the logs for further details.',
      attr: null,
    };

    it('answers 503 with Retry-After when the queue keeps refusing entries', async () => {
      // Prepare
      sqs.on(SendMessageBatchCommand).resolves({
        Successful: [],
        Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }],
      });

      // Act
      const response = await invoke(handler, jsJsonRequest({ api_key: token, event: 'e', distinct_id: 'd' }));

      // Assess: three attempts, then the SDK is told to retry
      expect(response).toMatchObject({
        statusCode: 503,
        headers: { 'Retry-After': '5', ...corsFor(origin) },
        body: unableToStore,
      });
      expect(sentBatches()).toHaveLength(3);
    });

    it('answers 503 when SendMessageBatch itself fails', async () => {
      sqs.on(SendMessageBatchCommand).rejects(new Error('ServiceUnavailable'));

      const response = await invoke(handler, jsJsonRequest({ api_key: token, event: 'e', distinct_id: 'd' }));

      expect(response).toMatchObject({ statusCode: 503, body: unableToStore });
    });

    it('resends only the refused entries and succeeds when the queue takes them', async () => {
      // Prepare: 2 messages; the first call refuses the second entry
      sqs
        .on(SendMessageBatchCommand)
        .resolvesOnce({
          Successful: [{ Id: '0', MessageId: 'm0', MD5OfMessageBody: '' }],
          Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }],
        })
        .resolves({ Successful: [{ Id: '1', MessageId: 'm1', MD5OfMessageBody: '' }], Failed: [] });
      const big = 'x'.repeat(200_000);
      const batch = [
        { event: 'a', distinct_id: 'd', properties: { big } },
        { event: 'b', distinct_id: 'd', properties: { big } },
      ];

      // Act
      const response = await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

      // Assess
      expect(response.statusCode).toBe(200);
      expect(sentBatches().map((call) => call.Entries?.map((entry) => entry.Id))).toEqual([
        ['0', '1'],
        ['1'],
      ]);
    });
  });

  describe('an event too large to store', () => {
    it('is dropped and the request still succeeds, so the SDK does not retry it forever', async () => {
      const huge = {
        api_key: token,
        event: 'e',
        distinct_id: 'd',
        properties: { blob: 'x'.repeat(1_100_000) },
      };

      const response = await invoke(handler, jsJsonRequest(huge, '/capture/'));

      expect(response).toMatchObject({ statusCode: 200, body: { status: 1 } });
      expect(sentBatches()).toEqual([]);
    });
  });

  describe('a request with more events than one request may carry', () => {
    it('answers 413 request_too_large and queues nothing', async () => {
      const batch = Array.from({ length: captureLimits.maxEventsPerRequest + 1 }, () => ({
        event: 'e',
        distinct_id: 'd',
      }));

      const response = await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

      expect(response).toMatchObject({
        statusCode: 413,
        body: { type: 'client_error', code: 'request_too_large', detail: 'Request too large.', attr: null },
      });
      expect(sentBatches()).toEqual([]);
    });
  });

  describe('paths below a capture path', () => {
    it('answers 404 for /batch/anything, with CORS headers', async () => {
      const request = apiGatewayEvent({ path: '/batch/anything', headers: { origin }, body: '{}' });

      const response = await invoke(handler, request);

      expect(response).toMatchObject({ statusCode: 404, headers: corsFor(origin) });
      expect(sentBatches()).toEqual([]);
    });
  });

  describe('CORS', () => {
    it('answers a preflight with the requested headers, the methods and a max age', async () => {
      const response = await invoke(handler, preflightRequest('/e/', 'content-type,traceparent'));

      expect(response).toMatchObject({
        statusCode: 200,
        headers: {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
          'Access-Control-Allow-Headers': 'X-Requested-With,Content-Type,content-type,traceparent',
          'Access-Control-Expose-Headers': 'Retry-After',
          'Access-Control-Max-Age': '86400',
        },
      });
      expect(sentBatches()).toEqual([]);
    });

    it.each(['/capture', '/batch/', '/i/v0/e', '/track/', '/engage'])(
      'answers preflights on %s',
      async (path) => {
        const response = await invoke(handler, preflightRequest(path, 'content-type'));

        expect(response.statusCode).toBe(200);
        expect(response.headers['Access-Control-Allow-Headers']).toContain('content-type');
      },
    );

    it('puts CORS headers on 401 errors', async () => {
      const response = await invoke(
        handler,
        apiGatewayEvent({
          path: '/e/',
          headers: { origin: 'https://app.example.com' },
          body: '{"event":"e"}',
        }),
      );

      expect(response).toMatchObject({ statusCode: 401, headers: corsFor('https://app.example.com') });
    });

    it('allows any origin when the request names none', async () => {
      const response = await invoke(handler, apiGatewayEvent({ path: '/e/', body: '{"event":"e"}' }));

      expect(response.headers['Access-Control-Allow-Origin']).toBe('*');
    });
  });
});
