import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
type Zlib = typeof zlib;
import type { CountedZlib } from '../../../helpers/counted-zlib';
import { DictionaryDeflater } from '../../../../functions/shared/db/dictionary-deflate';
import { toEventItem } from '../../../../functions/shared/db/events';
import { propertiesDictionary } from '../../../../functions/shared/db/properties-dictionary';

// Counted, not replaced: every call still reaches Node's zlib.
jest.mock('node:zlib', () => jest.requireActual<CountedZlib>('../../../helpers/counted-zlib').countedZlib());
const { deflateRawSync, inflateRawSync } = jest.requireActual<Zlib>('node:zlib');

const properties = (n: number) => ({
  $current_url: `https://example.com/products/${n}?ref=newsletter`,
  $browser: 'Chrome',
  $lib: 'web',
  $session_id: `session-${n}`,
  description: 'x'.repeat(n % 300),
});
const json = (n: number): Buffer => Buffer.from(JSON.stringify(properties(n)));

beforeEach(() => jest.clearAllMocks());

describe('DictionaryDeflater', () => {
  it('gives byte for byte what deflateRawSync gives, input after input, inflating with the dictionary', () => {
    const deflater = new DictionaryDeflater(propertiesDictionary, 1);
    // Small and large JSON, incompressible bytes (more than the output buffer it starts with), empty.
    const inputs = [
      ...Array.from({ length: 50 }, (_, n) => json(n * 7)),
      randomBytes(40 * 1024),
      Buffer.alloc(0),
      json(3),
    ];
    for (const input of inputs) {
      const deflated = deflater.deflate(input);
      expect(deflated.equals(deflateRawSync(input, { level: 1, dictionary: propertiesDictionary }))).toBe(
        true,
      );
      expect(inflateRawSync(deflated, { dictionary: propertiesDictionary }).equals(input)).toBe(true);
    }
  });

  it('stores events’ properties through one zlib stream, not a stream and a zlib state per event', () => {
    // Act: 20 events whose properties are too large to store as text.
    for (let n = 0; n < 20; n++) {
      const item = toEventItem(
        {
          uuid: `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`,
          projectId: 7,
          event: '$pageview',
          distinctId: 'user-1',
          properties: { ...properties(n), description: 'x'.repeat(900) },
          timestamp: '2026-11-26T10:00:00.000Z',
          elementsChain: '',
          createdAt: '2026-11-26T10:00:01.000Z',
        },
        'owner',
      );
      expect(item.pd).toBeDefined();
    }

    // Assess
    expect(zlib.deflateRawSync).not.toHaveBeenCalled();
    expect(zlib.createDeflateRaw).toHaveBeenCalledTimes(1);
  });
});
