import { charactersRead } from '../../../helpers/characters-read';
import { forwardedClientIp, maxForwardedForLength } from '../../../../functions/shared/http/forwarded-for';

describe('forwardedClientIp', () => {
  const source = '198.51.100.7';

  it('is the source address with no trusted proxy, whatever the header says', () => {
    expect(forwardedClientIp(source, '203.0.113.9', 0)).toBe(source);
  });

  it('counts hops from the right, skipping the entry API Gateway appends for the source', () => {
    // GIVEN client-written, viewer (CloudFront saw), edge (a second proxy saw), then the gateway's own
    const header = '6.6.6.6, 203.0.113.9, 192.0.2.44, 198.51.100.7';
    // THEN
    expect(forwardedClientIp(source, header, 1)).toBe('192.0.2.44');
    expect(forwardedClientIp(source, header, 2)).toBe('203.0.113.9');
  });

  it('gives the same answer when the gateway did not append the source', () => {
    expect(forwardedClientIp(source, '6.6.6.6, 203.0.113.9', 1)).toBe('203.0.113.9');
  });

  it('strips a port from an IPv4 or bracketed IPv6 entry', () => {
    expect(forwardedClientIp(source, '203.0.113.9:51234', 1)).toBe('203.0.113.9');
    expect(forwardedClientIp(source, '[2001:db8::1]:443', 1)).toBe('2001:db8::1');
    expect(forwardedClientIp(source, '2001:db8::1', 1)).toBe('2001:db8::1');
  });

  it('falls back to the source for a chain shorter than the proxies trusted', () => {
    expect(forwardedClientIp(source, '203.0.113.9, 198.51.100.7', 2)).toBe(source);
    expect(forwardedClientIp(source, '198.51.100.7', 1)).toBe(source);
    expect(forwardedClientIp(source, undefined, 1)).toBe(source);
    expect(forwardedClientIp(source, '', 1)).toBe(source);
  });

  it('falls back to the source for an entry that is not an IP address', () => {
    for (const entry of ['unknown', 'evil.example', '', '1.2.3', '<script>', '300.1.1.1', '[::1'])
      expect(forwardedClientIp(source, `${entry}, ${source}`, 1)).toBe(source);
    expect(forwardedClientIp(source, ',,,', 1)).toBe(source);
    expect(forwardedClientIp(source, ',', 2)).toBe(source);
  });

  it('refuses an overlong header, reading none of it', () => {
    const padded = `${'1.1.1.1,'.repeat(maxForwardedForLength / 8)}203.0.113.9`;
    expect(padded.length).toBeGreaterThan(maxForwardedForLength);
    expect(forwardedClientIp(source, padded, 1)).toBe(source);
  });

  it('reads a long header within the bound from the right only: as many characters however long', () => {
    // Prepare: the same last entries behind 80 and behind 4,000 client-written commas
    const behind = (commas: number) => `${','.repeat(commas)}203.0.113.9, 198.51.100.7`;
    const long = behind(maxForwardedForLength - 40);

    // Act
    const short = charactersRead(() => forwardedClientIp(source, behind(80), 1));
    const read = charactersRead(() => forwardedClientIp(source, long, 1));

    // Assess: the answer, from the same few characters at the right (a split or a scan from the left
    // would read the whole header: fifty times as much)
    expect(long.length).toBeLessThanOrEqual(maxForwardedForLength);
    expect(read.result).toBe('203.0.113.9');
    expect(read.characters).toBe(short.characters);
    expect(read.characters).toBeLessThan(100);
  });
});
