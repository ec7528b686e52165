import { compressToBase64 } from 'lz-string';
import { gzipSync } from 'node:zlib';
import type { Handler } from './events';
import { apiGatewayEvent, getDataRequest, invoke, jsBase64FormRequest } from './events';
import { givenProjectToken, resetMocks, sentBatches, uniqueToken } from './mocks';
import { envNames } from '../../../functions/shared/config';
import { setFunctionEnvironment, unsetEnvironment } from '../../../bin/environment';

/**
 * Body limits with a small MAX_BODY_BYTES, so that bombs stay cheap to build. The handler reads its
 * configuration once, when its module loads (a cold start): the variable is set before that import.
 */
const maxBodyBytes = 64 * 1024;
let handler: Handler;

const tooLarge = {
  statusCode: 413,
  body: { type: 'client_error', code: 'request_too_large', detail: 'Request too large.', attr: null },
};

describe('capture: body size limits (413 request_too_large)', () => {
  let token: string;

  beforeAll(async () => {
    setFunctionEnvironment({ [envNames.maxBodyBytes]: String(maxBodyBytes) });
    ({ handler } = await import('../../../functions/capture/handler'));
  });
  afterAll(() => {
    unsetEnvironment(envNames.maxBodyBytes);
  });
  beforeEach(() => {
    resetMocks();
    token = uniqueToken();
    givenProjectToken(token);
  });

  /** A batch whose JSON is about `bytes` long. */
  const batchOfSize = (bytes: number) => ({
    api_key: token,
    batch: [{ event: 'e', distinct_id: 'd', properties: { fill: 'x'.repeat(bytes) } }],
  });

  it('accepts a body just under the limit', async () => {
    const response = await invoke(
      handler,
      apiGatewayEvent({ path: '/batch/', body: JSON.stringify(batchOfSize(60_000)) }),
    );

    expect(response.statusCode).toBe(200);
  });

  it('refuses a body over the limit, with CORS headers', async () => {
    const request = apiGatewayEvent({
      path: '/batch/',
      headers: { origin: 'http://localhost:1' },
      body: JSON.stringify(batchOfSize(maxBodyBytes)),
    });

    const response = await invoke(handler, request);

    expect(response).toMatchObject({
      ...tooLarge,
      headers: { 'Access-Control-Allow-Origin': 'http://localhost:1' },
    });
    expect(sentBatches()).toEqual([]);
  });

  it('counts the decoded bytes of a body API Gateway base64-encoded', async () => {
    // Prepare: 60 KB of body is 80 KB of base64
    const request = apiGatewayEvent({
      path: '/batch/',
      body: Buffer.from(JSON.stringify(batchOfSize(60_000))),
    });

    const response = await invoke(handler, request);

    expect(response.statusCode).toBe(200);
  });

  it('refuses a gzip body that inflates beyond the limit (gzip bomb)', async () => {
    // Prepare: 10 MB of zeros gzip to about 10 KB
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(maxBodyBytes);

    // Act
    const response = await invoke(handler, bombRequest(bomb));

    // Assess
    expect(response).toMatchObject(tooLarge);
  });

  it('refuses a sniffed gzip body that inflates beyond the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));

    const response = await invoke(
      handler,
      apiGatewayEvent({ path: '/e/', headers: { 'content-type': 'text/plain' }, body: bomb }),
    );

    expect(response).toMatchObject(tooLarge);
  });

  it('accepts a gzip body that inflates to just under the limit', async () => {
    const body = gzipSync(JSON.stringify(batchOfSize(60_000)));

    const response = await invoke(handler, bombRequest(body));

    expect(response.statusCode).toBe(200);
  });

  it('refuses lz64 data that decompresses beyond the limit (LZW expands quadratically)', async () => {
    // Prepare: 256 KB of one character is about 2 KB of lz64
    const bomb = compressToBase64('a'.repeat(256 * 1024));
    expect(bomb.length).toBeLessThan(maxBodyBytes);

    // Act
    const response = await invoke(
      handler,
      apiGatewayEvent({ path: '/e/', query: { compression: 'lz64' }, body: bomb }),
    );

    // Assess
    expect(response).toMatchObject(tooLarge);
  });

  it('refuses a base64 form body over the limit', async () => {
    const response = await invoke(handler, jsBase64FormRequest(batchOfSize(maxBodyBytes)));

    expect(response).toMatchObject(tooLarge);
  });

  it('reads GET ?data= within the limit', async () => {
    const response = await invoke(
      handler,
      getDataRequest(
        Buffer.from(JSON.stringify({ api_key: token, event: 'e', distinct_id: 'd' })).toString('base64'),
      ),
    );

    expect(response.statusCode).toBe(200);
  });
});

/** posthog-node's gzip /batch/ request around an arbitrary gzip body. */
function bombRequest(gzipBody: Buffer) {
  return apiGatewayEvent({
    path: '/batch/',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipBody,
  });
}
