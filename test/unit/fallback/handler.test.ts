import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler } from '../../../functions/fallback/handler';

const request = (method: string, path: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
      stage: '$default',
      requestId: 'r',
      routeKey: '$default',
    },
  }) as unknown as APIGatewayProxyEventV2;

const context = { awsRequestId: 'test' } as Context;

describe('the $default route', () => {
  it('answers an unknown path with 404 in the documented shape', async () => {
    const response = await handler(request('GET', '/api/unknown/'), context);
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body as string)).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: 'Not found.',
      attr: null,
    });
  });

  it('answers a known path under another method with 405', async () => {
    const response = await handler(request('PUT', '/capture/'), context);
    expect(response.statusCode).toBe(405);
    expect(JSON.parse(response.body as string)).toEqual({
      type: 'invalid_request',
      code: 'method_not_allowed',
      detail: 'Method "PUT" not allowed.',
      attr: null,
    });
  });
});
