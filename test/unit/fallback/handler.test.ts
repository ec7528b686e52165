import type { Context } from 'aws-lambda';
import { handler } from '../../../functions/fallback/handler';
import { apiGatewayEvent } from '../../helpers/http-event';

const request = (method: string, path: string) => apiGatewayEvent({ method, path, routeKey: '$default' });

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
