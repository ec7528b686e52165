import { compressToBase64 } from 'lz-string';
import { gzipSync } from 'node:zlib';
import { handler } from '../../../functions/capture/handler';
import {
  apiGatewayEvent,
  base64FormBody,
  getDataRequest,
  invoke,
  jsBase64FormRequest,
  jsEnvelopePayload,
  jsGzipRequest,
  jsJsonRequest,
  legacyJsGzipRequest,
  lz64FormRequest,
  mangledBase64,
  nodeBatchPayload,
  nodeBatchRequest,
  sentAt,
} from './events';
import {
  freezeTime,
  getItemInputs,
  givenProjectToken,
  onlyMessage,
  projectItem,
  queuedMessages,
  queueUrl,
  receivedAt,
  resetMocks,
  sentBatches,
  tokenLookup,
  uniqueToken,
  uuidV7,
} from './mocks';

/** What every SDK request of this file must get back. */
const ok = { statusCode: 200, body: { status: 1 } };

describe('capture: requests as the real SDKs send them', () => {
  let token: string;

  beforeAll(() => freezeTime());
  afterAll(() => jest.useRealTimers());
  beforeEach(() => {
    // Prepare
    resetMocks();
    token = uniqueToken();
    givenProjectToken(token);
  });

  describe('paths', () => {
    const paths = ['/capture', '/batch', '/e', '/i/v0/e', '/track', '/engage'].flatMap((path) => [
      path,
      `${path}/`,
    ]);

    it.each(paths)('accepts POST %s', async (path) => {
      const response = await invoke(
        handler,
        jsJsonRequest({ api_key: token, event: 'e', distinct_id: 'd' }, path),
      );

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toHaveLength(1);
    });

    it.each(paths)('accepts GET %s?data=', async (path) => {
      const data = Buffer.from(JSON.stringify({ api_key: token, event: 'e', distinct_id: 'd' })).toString(
        'base64',
      );

      const response = await invoke(handler, getDataRequest(data, path));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toHaveLength(1);
    });
  });

  describe('posthog-node 5.x', () => {
    it('accepts a gzip /batch/ with Content-Encoding and queues every event in one message', async () => {
      // Prepare
      const payload = nodeBatchPayload(token);

      // Act
      const response = await invoke(handler, nodeBatchRequest(payload, '/batch/'));

      // Assess
      expect(response).toMatchObject(ok);
      expect(getItemInputs()).toEqual([tokenLookup(token)]);
      expect(onlyMessage()).toEqual({
        v: 1,
        project_id: 7,
        now: receivedAt.toISOString(),
        sent_at: sentAt,
        ip: '198.51.100.7',
        site_url: 'https://capture.example.com',
        events: payload.batch.map((event) => ({
          uuid: event.uuid,
          distinct_id: event.distinct_id,
          data: event,
        })),
      });
    });

    it('accepts the same body on /batch without the trailing slash', async () => {
      const response = await invoke(handler, nodeBatchRequest(nodeBatchPayload(token), '/batch'));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toHaveLength(4);
    });

    it('accepts an uncompressed posthog-node 4.x batch and ignores its top-level type, library and library_version', async () => {
      // Prepare: 4.x sent plain JSON and tagged every event with the deprecated fields
      const payload = nodeBatchPayload(token);
      const legacy = {
        ...payload,
        batch: payload.batch.map((event) => ({
          ...event,
          type:
            event.event === '$identify' ? 'identify' : event.event === '$create_alias' ? 'alias' : 'capture',
          library: 'posthog-node',
          library_version: '4.18.0',
        })),
      };

      // Act
      const response = await invoke(
        handler,
        apiGatewayEvent({
          path: '/batch/',
          headers: { 'content-type': 'application/json', 'user-agent': 'posthog-node/4.18.0' },
          body: JSON.stringify(legacy),
        }),
      );

      // Assess: every event keeps its own name and content
      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toEqual(
        legacy.batch.map((event) => ({ uuid: event.uuid, distinct_id: event.distinct_id, data: event })),
      );
    });
  });

  describe('posthog-js 1.449', () => {
    it('sniffs gzip sent as text/plain with neither Content-Encoding nor a compression parameter', async () => {
      // Prepare
      const payload = jsEnvelopePayload(token);

      // Act
      const response = await invoke(handler, jsGzipRequest(payload));

      // Assess: distinct ids come from properties, CORS is answered for the page's origin
      expect(response).toMatchObject(ok);
      expect(response.headers['Access-Control-Allow-Origin']).toBe('http://localhost:36749');
      // No request of the SDKs carries credentials: allowing them would only widen what a page may read.
      expect(response.headers).not.toHaveProperty('Access-Control-Allow-Credentials');
      expect(onlyMessage()).toEqual({
        v: 1,
        project_id: 7,
        now: receivedAt.toISOString(),
        sent_at: '2026-11-21T19:14:20.822Z',
        ip: '198.51.100.7',
        site_url: 'https://capture.example.com',
        events: [
          {
            uuid: payload.batch[0]!.uuid,
            distinct_id: '01a1ff87-edcd-7000-8000-000000000001',
            data: payload.batch[0],
          },
          { uuid: payload.batch[1]!.uuid, distinct_id: 'browser-user-1', data: payload.batch[1] },
        ],
      });
    });

    it('reads plain JSON sent with disable_compression', async () => {
      const payload = jsEnvelopePayload(token);

      const response = await invoke(handler, jsJsonRequest(payload));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events.map((event) => event.data)).toEqual(payload.batch);
    });

    it.each([
      ['base64-encoded by API Gateway', true],
      ['passed as text by API Gateway', false],
    ])('decodes a base64 form beacon (compression=base64) %s', async (_case, apiGatewayBase64) => {
      const payload = jsEnvelopePayload(token);

      const response = await invoke(handler, jsBase64FormRequest(payload, apiGatewayBase64));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events.map((event) => event.data)).toEqual(payload.batch);
    });

    it('decodes a data= form body sent without the form content type', async () => {
      const payload = jsEnvelopePayload(token);

      const response = await invoke(
        handler,
        apiGatewayEvent({
          path: '/e/',
          headers: { 'content-type': 'text/plain' },
          body: base64FormBody(payload),
        }),
      );

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toHaveLength(2);
    });
  });

  describe('legacy wire formats', () => {
    it('reads a posthog-js 1.200 bare array with compression=gzip-js and takes sent_at from `_`', async () => {
      // Prepare: no envelope, the token in each event's properties
      const events = [
        {
          event: '$pageview',
          properties: { distinct_id: 'legacy-1', token, $lib: 'web', $lib_version: '1.200.0' },
        },
        { event: 'clicked', properties: { distinct_id: 'legacy-1', token } },
      ];
      const sentAtMs = Date.parse('2026-11-21T19:12:59.000Z');

      // Act
      const response = await invoke(handler, legacyJsGzipRequest(events, sentAtMs));

      // Assess
      expect(response).toMatchObject(ok);
      const message = onlyMessage();
      expect(message.sent_at).toBe('2026-11-21T19:12:59.000Z');
      expect(message.events).toEqual([
        { uuid: expect.stringMatching(uuidV7), distinct_id: 'legacy-1', data: events[0] },
        { uuid: expect.stringMatching(uuidV7), distinct_id: 'legacy-1', data: events[1] },
      ]);
    });

    it('reads a posthog-js 1.200 single event object (instant send)', async () => {
      const single = { event: 'signed up', properties: { distinct_id: 'legacy-2', token, plan: 'free' } };

      const response = await invoke(handler, jsJsonRequest(single, '/e'));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toEqual([
        { uuid: expect.stringMatching(uuidV7), distinct_id: 'legacy-2', data: single },
      ]);
    });

    it('decompresses lz64 form data (lz-string decompressFromBase64)', async () => {
      const single = { event: 'lz event', properties: { distinct_id: 'lz-user', token, text: 'héllo ✓ 🎉' } };

      const response = await invoke(handler, lz64FormRequest(single));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events[0]!.data).toEqual(single);
    });

    it('puts back the + that URL decoding turned into spaces in lz64 data', async () => {
      // Prepare: a client that did not URL-encode the lz64 string, so each + reads as a space
      const single = { event: 'lz event', properties: { distinct_id: 'lz-user', token, n: [1, 2, 3] } };
      const compressed = compressToBase64(JSON.stringify(single));
      expect(compressed).toContain('+');

      // Act
      const response = await invoke(
        handler,
        apiGatewayEvent({
          path: '/e/',
          query: { compression: 'lz64' },
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `data=${compressed}`,
        }),
      );

      // Assess
      expect(response).toMatchObject(ok);
      expect(onlyMessage().events[0]!.data).toEqual(single);
    });

    it('reads GET ?data= base64 with + turned into spaces and the padding missing', async () => {
      // Prepare: characters whose base64 contains + and needs padding
      const single = { event: '$pageview', properties: { distinct_id: 'get-user', token, title: '>>>~~~?' } };
      const data = mangledBase64(single);
      expect(data).toContain(' ');

      // Act
      const response = await invoke(handler, getDataRequest(data, '/e/', { ip: '1', _: '1795288379000' }));

      // Assess
      expect(response).toMatchObject(ok);
      const message = onlyMessage();
      expect(message.events[0]!.data).toEqual(single);
      expect(message.sent_at).toBe(new Date(1795288379000).toISOString());
    });

    it('reads GET ?data= holding URL-decoded JSON', async () => {
      const single = { event: 'get json', distinct_id: 'get-json-user', api_key: token };

      const response = await invoke(handler, getDataRequest(JSON.stringify(single), '/capture'));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toEqual([
        {
          uuid: expect.stringMatching(uuidV7),
          distinct_id: 'get-json-user',
          data: { ...single, properties: {} },
        },
      ]);
    });

    it('turns a posthog-js legacy /engage/ call into $identify, reading $token and $distinct_id', async () => {
      // Prepare: Django's test_engage body
      const engage = {
        $set: { $os: 'Mac OS X', name: 'Ada' },
        $token: token,
        $distinct_id: 3,
        $device_id: 'dev-1',
      };

      // Act
      const response = await invoke(
        handler,
        getDataRequest(Buffer.from(JSON.stringify(engage)).toString('base64'), '/engage/'),
      );

      // Assess
      expect(response).toMatchObject(ok);
      expect(onlyMessage().events).toEqual([
        {
          uuid: expect.stringMatching(uuidV7),
          distinct_id: '3',
          data: { ...engage, event: '$identify', properties: {} },
        },
      ]);
    });

    it('posts an /engage body with its own event name and still forwards $identify', async () => {
      const engage = { event: 'whatever', $set: { a: 1 }, $token: token, $distinct_id: 'engaged' };

      const response = await invoke(handler, jsJsonRequest(engage, '/engage'));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events[0]!.data.event).toBe('$identify');
    });

    it('does not rewrite a batch posted to /engage/', async () => {
      const payload = { api_key: token, batch: [{ event: 'kept', distinct_id: 'd' }] };

      await invoke(handler, jsJsonRequest(payload, '/engage/'));

      expect(onlyMessage().events[0]!.data.event).toBe('kept');
    });
  });

  describe('Segment-style client messages', () => {
    const send = async (message: Record<string, unknown>) => {
      const response = await invoke(handler, jsJsonRequest({ api_key: token, ...message }, '/capture/'));
      expect(response).toMatchObject(ok);
      return onlyMessage().events[0]!;
    };

    it('maps identify to $identify with $set from traits', async () => {
      const event = await send({
        type: 'identify',
        distinct_id: 'seg-1',
        traits: { email: 'x@example.com', plan: 'free' },
        $set: { plan: 'pro' },
        context: { ip: '1.1.1.1' },
        messageId: 'm-1',
      });

      expect(event.distinct_id).toBe('seg-1');
      expect(event.data).toMatchObject({
        event: '$identify',
        $set: { email: 'x@example.com', plan: 'pro' },
        context: { ip: '1.1.1.1' },
        messageId: 'm-1',
        properties: {},
      });
    });

    it('maps alias to $create_alias with properties.alias', async () => {
      const event = await send({ type: 'alias', distinct_id: 'seg-2', alias: 'seg-2-old' });

      expect(event.data).toMatchObject({ event: '$create_alias', properties: { alias: 'seg-2-old' } });
    });

    it('keeps an alias message that already carries properties.alias', async () => {
      const event = await send({
        type: 'alias',
        event: '$create_alias',
        properties: { distinct_id: 'seg-3', alias: 'seg-3-old' },
      });

      expect(event.distinct_id).toBe('seg-3');
      expect(event.data).toMatchObject({ event: '$create_alias', properties: { alias: 'seg-3-old' } });
    });

    it.each([
      ['page', '$page'],
      ['screen', '$screen'],
    ])('maps %s to %s with name and category in properties', async (type, eventName) => {
      const event = await send({
        type,
        distinct_id: 'seg-4',
        name: 'Pricing',
        category: 'Docs',
        properties: { a: 1 },
      });

      expect(event.data).toMatchObject({
        event: eventName,
        properties: { a: 1, name: 'Pricing', category: 'Docs' },
      });
    });

    it('keeps the event of a capture message', async () => {
      const event = await send({
        type: 'capture',
        event: 'bought',
        distinct_id: 'seg-5',
        properties: { price: 3 },
      });

      expect(event.data).toMatchObject({ event: 'bought', properties: { price: 3 } });
    });
  });

  describe('per-event normalisation', () => {
    it('reads NaN, Infinity and -Infinity as null', async () => {
      const body = `{"api_key":"${token}","event":"nan","distinct_id":"n","properties":{"a":NaN,"b":Infinity,"c":-Infinity,"s":"NaN"}}`;

      const response = await invoke(handler, apiGatewayEvent({ path: '/capture/', body }));

      expect(response).toMatchObject(ok);
      expect(onlyMessage().events[0]!.data.properties).toEqual({ a: null, b: null, c: null, s: 'NaN' });
    });

    it('drops events without a name or distinct id and still answers 200', async () => {
      // Prepare
      const batch = [
        { event: 'kept', distinct_id: 'a' },
        { distinct_id: 'no-name' },
        { event: '', distinct_id: 'empty-name' },
        { event: 'no-distinct-id', properties: {} },
        { event: 'empty-distinct-id', distinct_id: '' },
        { event: 'null-distinct-id', properties: { distinct_id: null } },
      ];

      // Act
      const response = await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

      // Assess
      expect(response).toMatchObject(ok);
      expect(onlyMessage().events.map((event) => event.data.event)).toEqual(['kept']);
    });

    it('answers 200 without touching the queue when every event is dropped', async () => {
      const response = await invoke(
        handler,
        jsJsonRequest({ api_key: token, batch: [{ distinct_id: 'x' }] }, '/batch/'),
      );

      expect(response).toMatchObject(ok);
      expect(sentBatches()).toEqual([]);
    });

    it('prefers $distinct_id, then properties.distinct_id, then the top-level distinct_id (Django order)', async () => {
      const batch = [
        { event: 'a', $distinct_id: 'dollar', distinct_id: 'top', properties: { distinct_id: 'props' } },
        { event: 'b', distinct_id: 'top', properties: { distinct_id: 'props' } },
        { event: 'c', distinct_id: 'top', properties: {} },
      ];

      await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

      expect(onlyMessage().events.map((event) => event.distinct_id)).toEqual(['dollar', 'props', 'top']);
    });

    it('stringifies a numeric distinct id and cuts long ones to 200 characters', async () => {
      const batch = [
        { event: 'a', distinct_id: 2 },
        { event: 'b', distinct_id: 'a'.repeat(250) },
        { event: 'c', distinct_id: '🎉'.repeat(201) },
      ];

      await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

      expect(onlyMessage().events.map((event) => event.distinct_id)).toEqual([
        '2',
        'a'.repeat(200),
        '🎉'.repeat(200),
      ]);
    });

    it('keeps a client uuid (any 128-bit hex, as Django) in canonical form, and generates UUIDv7 otherwise', async () => {
      const batch = [
        { event: 'a', distinct_id: 'd', uuid: '01823e89-f75d-0000-0d4d-3d43e54f6de5' },
        { event: 'b', distinct_id: 'd', uuid: '{01823E89F75D00000D4D3D43E54F6DE6}' },
        { event: 'c', distinct_id: 'd', uuid: '' },
        { event: 'd', distinct_id: 'd' },
      ];

      await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

      expect(onlyMessage().events.map((event) => event.uuid)).toEqual([
        '01823e89-f75d-0000-0d4d-3d43e54f6de5',
        '01823e89-f75d-0000-0d4d-3d43e54f6de6',
        expect.stringMatching(uuidV7),
        expect.stringMatching(uuidV7),
      ]);
    });

    it('defaults missing or empty properties to {}', async () => {
      const batch = [
        { event: 'a', distinct_id: 'd' },
        { event: 'b', distinct_id: 'd', properties: null },
        { event: 'c', distinct_id: 'd', properties: [] },
      ];

      await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

      expect(onlyMessage().events.map((event) => event.data.properties)).toEqual([{}, {}, {}]);
    });

    it('queues under the project of the first token when an array mixes tokens (Django)', async () => {
      // Prepare
      const other = uniqueToken();
      givenProjectToken(other, projectItem({ project_id: 99 }));
      const events = [
        { event: 'a', properties: { distinct_id: 'd', token } },
        { event: 'b', properties: { distinct_id: 'd', token: other } },
      ];

      // Act
      await invoke(handler, jsJsonRequest(events));

      // Assess
      expect(getItemInputs()).toEqual([tokenLookup(token)]);
      const message = onlyMessage();
      expect(message.project_id).toBe(7);
      expect(message.events).toHaveLength(2);
    });
  });

  describe('request envelope', () => {
    it('takes the client ip from the source IP, never from a client-written X-Forwarded-For', async () => {
      const request = apiGatewayEvent({
        path: '/capture/',
        sourceIp: '198.51.100.7',
        headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' },
        body: JSON.stringify({ api_key: token, event: 'e', distinct_id: 'd' }),
      });

      await invoke(handler, request);

      expect(onlyMessage().ip).toBe('198.51.100.7');
    });

    it('forwards no ip for a project that anonymizes IPs', async () => {
      const anonymous = uniqueToken();
      givenProjectToken(anonymous, projectItem({ anonymize_ips: true }));

      await invoke(handler, jsJsonRequest({ api_key: anonymous, event: 'e', distinct_id: 'd' }, '/capture/'));

      expect(onlyMessage().ip).toBeNull();
    });

    it('ignores a `_` that looks like seconds and falls back to the body sent_at', async () => {
      const request = apiGatewayEvent({
        path: '/e/',
        query: { _: '1795288379' },
        body: JSON.stringify({ api_key: token, batch: [{ event: 'e', distinct_id: 'd' }], sent_at: sentAt }),
      });

      await invoke(handler, request);

      expect(onlyMessage().sent_at).toBe(sentAt);
    });

    it('reads sent_at from a form field', async () => {
      const request = apiGatewayEvent({
        path: '/e/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: base64FormBody({ api_key: token, event: 'e', distinct_id: 'd' }, { sent_at: '1795288379000' }),
      });

      await invoke(handler, request);

      expect(onlyMessage().sent_at).toBe(new Date(1795288379000).toISOString());
    });

    it('forwards sent_at null when the request carries none', async () => {
      await invoke(handler, jsJsonRequest({ api_key: token, event: 'e', distinct_id: 'd' }, '/capture/'));

      expect(onlyMessage().sent_at).toBeNull();
    });
  });

  describe('queueing', () => {
    it('packs events into as few messages as fit and groups them into SendMessageBatch calls within SQS limits', async () => {
      // Prepare: 24 events of ~100 KB: 2 per 256 KiB message → 12 messages; 5 messages per 1 MiB call
      const big = 'x'.repeat(100_000);
      const batch = Array.from({ length: 24 }, (_, i) => ({
        event: `e${i}`,
        distinct_id: 'd',
        properties: { big },
      }));

      // Act
      const response = await invoke(
        handler,
        apiGatewayEvent({
          path: '/batch/',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body: gzipSync(JSON.stringify({ api_key: token, batch })),
        }),
      );

      // Assess
      expect(response).toMatchObject(ok);
      const calls = sentBatches();
      expect(calls.map((call) => call.QueueUrl)).toEqual([queueUrl, queueUrl, queueUrl]);
      expect(calls.map((call) => call.Entries?.map((entry) => entry.Id))).toEqual([
        ['0', '1', '2', '3', '4'],
        ['0', '1', '2', '3', '4'],
        ['0', '1'],
      ]);
      for (const call of calls) {
        const bodies = (call.Entries ?? []).map((entry) => entry.MessageBody!);
        expect(bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0)).toBeLessThanOrEqual(
          1024 * 1024,
        );
        for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(256 * 1024);
      }
      expect(queuedMessages().flatMap((message) => message.events.map((event) => event.data.event))).toEqual(
        batch.map((event) => event.event),
      );
    });
  });
});
