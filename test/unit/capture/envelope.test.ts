import { clientIp, sentAtOf } from '../../../functions/capture/envelope';
import { apiGatewayEvent } from './events';

describe('sentAtOf', () => {
  const get = (query: Record<string, string> = {}) => apiGatewayEvent({ method: 'GET', path: '/e/', query });

  it('reads `_` as milliseconds', () => {
    expect(sentAtOf({}, undefined, get({ _: '1795288379123' }))).toBe('2026-11-21T19:12:59.123Z');
  });

  it('ignores a `_` from 2020 or before (seconds sent where ms are expected)', () => {
    expect(sentAtOf({ sent_at: '2026-01-01T00:00:00Z' }, undefined, get({ _: '1795288379' }))).toBe(
      '2026-01-01T00:00:00.000Z',
    );
  });

  it('reads body digits as seconds up to 11 digits and as milliseconds beyond (Django)', () => {
    expect(sentAtOf({ sent_at: '1795288379' }, undefined, get())).toBe('2026-11-21T19:12:59.000Z');
    expect(sentAtOf({ sent_at: '1795288379500' }, undefined, get())).toBe('2026-11-21T19:12:59.500Z');
  });

  it('ignores a sent_at it cannot read', () => {
    expect(sentAtOf({ sent_at: 'yesterday-ish' }, undefined, get())).toBeNull();
    expect(sentAtOf({ sent_at: '9'.repeat(30) }, undefined, get())).toBeNull();
    expect(sentAtOf({}, undefined, get({ _: '9'.repeat(30) }))).toBeNull();
  });

  it('reads the form sent_at last', () => {
    expect(sentAtOf([], new URLSearchParams({ sent_at: '2026-11-21T19:12:58.403Z' }), get())).toBe(
      '2026-11-21T19:12:58.403Z',
    );
  });
});

describe('clientIp', () => {
  const behind = (forwardedFor: string) =>
    apiGatewayEvent({ sourceIp: '192.0.2.1', headers: { 'x-forwarded-for': forwardedFor } });

  it('falls back to the source IP without X-Forwarded-For', () => {
    expect(clientIp(apiGatewayEvent({ sourceIp: '192.0.2.1' }), 0)).toBe('192.0.2.1');
    expect(clientIp(apiGatewayEvent({ sourceIp: '192.0.2.1' }), 1)).toBe('192.0.2.1');
  });

  it('ignores X-Forwarded-For with no trusted proxy', () => {
    expect(clientIp(behind('203.0.113.9, 192.0.2.1'), 0)).toBe('192.0.2.1');
  });

  it('takes the address the trusted proxy saw, not what the client wrote to its left', () => {
    expect(clientIp(behind('6.6.6.6, 203.0.113.9, 192.0.2.1'), 1)).toBe('203.0.113.9');
  });
});
