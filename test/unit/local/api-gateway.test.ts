import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { toApiGatewayEvent } from '../../../bin/local/api-gateway';
import { routes } from '../../../functions/routes';
import { RouteMatcher } from '../../../functions/shared/http/route-match';

/** A request as the local HTTP server receives it: method, url, raw headers, a socket. */
function request(headers: Record<string, string>): IncomingMessage {
  const rawHeaders = Object.entries(headers).flat();
  return {
    method: 'POST',
    url: '/batch/',
    httpVersion: '1.1',
    rawHeaders,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
    socket: new Socket(),
  } as unknown as IncomingMessage;
}

const match = new RouteMatcher(routes).match('POST', '/batch/')!;

describe('toApiGatewayEvent: bodies as API Gateway passes them', () => {
  it('passes a UTF-8 JSON body as text, multi-byte characters included', () => {
    const json = JSON.stringify({ api_key: 'phc_x', batch: [{ event: 'café ☕ 𝄞', properties: {} }] });
    const event = toApiGatewayEvent(
      request({ 'Content-Type': 'application/json' }),
      Buffer.from(json),
      match,
    );
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe(json);
  });

  it('base64-encodes a JSON-typed body that is not valid UTF-8, byte for byte', () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]);
    const event = toApiGatewayEvent(request({ 'Content-Type': 'application/json' }), bytes, match);
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64')).toEqual(bytes);
  });

  it('base64-encodes a body with a content encoding, and one of a binary type', () => {
    const gzipped = gzipSync('{"a":1}');
    const encoded = toApiGatewayEvent(
      request({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }),
      gzipped,
      match,
    );
    expect(encoded.isBase64Encoded).toBe(true);
    expect(Buffer.from(encoded.body!, 'base64')).toEqual(gzipped);
    const binary = toApiGatewayEvent(
      request({ 'Content-Type': 'application/octet-stream' }),
      Buffer.from('plain'),
      match,
    );
    expect(binary.isBase64Encoded).toBe(true);
  });

  it('sends no body for an empty one', () => {
    const event = toApiGatewayEvent(request({ 'Content-Type': 'application/json' }), Buffer.alloc(0), match);
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });
});
