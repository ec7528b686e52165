/**
 * `LZString.decompressFromBase64` (lz-string 1.5.0, what very old posthog-js sent as `compression=lz64`),
 * with a cap on the output.
 *
 * Why not call the library: LZ-string is LZW, whose dictionary entries grow by one character per code,
 * so n codes can expand to about n²/2 characters. A few hundred kilobytes of crafted input would
 * decompress to gigabytes, and the library offers no way to stop early. This is the same algorithm
 * (results are checked against the library in the unit tests) with a running output count.
 */

const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const base64Value = new Map<string, number>(
  [...base64Alphabet].map((character, index) => [character, index]),
);

/** Raised when the output would exceed the cap. */
export class Lz64TooLargeError extends Error {}

/** Reads the input's bits, least significant first within each 6-bit base64 character. */
class BitReader {
  private value: number;
  private position = 32;
  private index = 1;

  constructor(private readonly input: string) {
    this.value = this.charValue(0);
  }

  /** Characters consumed so far: the decoder stops once it has read past the end. */
  get consumed(): number {
    return this.index;
  }

  read(bitCount: number): number {
    let bits = 0;
    for (let power = 1, n = 0; n < bitCount; n++, power *= 2) {
      const bit = this.value & this.position;
      this.position >>= 1;
      if (this.position === 0) {
        this.position = 32;
        this.value = this.charValue(this.index++);
      }
      if (bit > 0) bits += power;
    }
    return bits;
  }

  // Characters outside the alphabet read as 0 bits, as in the library (where `undefined & n` is 0).
  private charValue(index: number): number {
    return base64Value.get(this.input.charAt(index)) ?? 0;
  }
}

/**
 * Decompresses lz-string's base64 output. Returns what the library returns (`null` for an empty input
 * or an impossible code, `''` for a truncated stream), except for streams the library cannot read
 * either (see below), and throws Lz64TooLargeError beyond `maxChars` characters of output.
 */
export function decompressLz64(input: string, maxChars: number): string | null {
  if (input === '') return null;
  const reader = new BitReader(input);
  const dictionary: string[] = ['', '', ''];
  let enlargeIn = 4;
  let numBits = 3;

  const literal = (code: number): string | undefined => {
    if (code === 0) return String.fromCharCode(reader.read(8));
    if (code === 1) return String.fromCharCode(reader.read(16));
    return undefined;
  };

  const firstCode = reader.read(2);
  if (firstCode === 2) return '';
  const first = literal(firstCode);
  // Code 3 cannot start a stream: the library carries on with `undefined` as its first entry and
  // returns garbage ("undefined…"), null, or throws. None of that is data.
  if (first === undefined) return null;
  dictionary[3] = first;
  let previous = first;
  const result: string[] = [first];
  let outputChars = first.length;

  for (;;) {
    if (reader.consumed > input.length) return '';
    let code = reader.read(numBits);
    if (code === 2) return result.join('');
    const character = literal(code);
    if (character !== undefined) {
      dictionary.push(character);
      code = dictionary.length - 1;
      if (--enlargeIn === 0) enlargeIn = 2 ** numBits++;
    }
    let entry = dictionary[code];
    if (!entry) {
      if (code !== dictionary.length) return null;
      entry = previous + previous.charAt(0);
    }
    outputChars += entry.length;
    if (outputChars > maxChars) throw new Lz64TooLargeError('lz64 payload decompresses beyond the limit');
    result.push(entry);
    dictionary.push(previous + entry.charAt(0));
    if (--enlargeIn === 0) enlargeIn = 2 ** numBits++;
    previous = entry;
  }
}
