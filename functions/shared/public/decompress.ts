import { gunzipSync } from 'node:zlib';
import { PayloadTooLargeError } from '../http/errors';
import { DecodeError } from './errors';
import { decompressLz64, Lz64TooLargeError } from './lz64';

/**
 * The three ways a capture payload can be wrapped (`posthog/utils.py` `load_data_from_request`). Each is capped at the
 * body limit, so a small request can never expand into a large one (no decompression bombs).
 */

export const isGzip = (bytes: Buffer): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/** Django's own message when posthog-js sent the string `undefined` as a gzip body. */
const literalUndefined =
  "data being loaded from the request body for decompression is the literal string 'undefined'";

export function gunzip(bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length === 9 && bytes.toString('latin1') === 'undefined')
    throw new DecodeError('malformed', literalUndefined);
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new PayloadTooLargeError();
    throw new DecodeError('malformed', `Failed to decompress data. ${(error as Error).message}`);
  }
}

/** lz-string's base64 form; URL decoding has turned its `+` into spaces, which are put back first. */
export function lz64(text: string, maxChars: number): string {
  let decompressed: string | null;
  try {
    decompressed = decompressLz64(text.replaceAll(' ', '+'), maxChars);
  } catch (error) {
    if (error instanceof Lz64TooLargeError) throw new PayloadTooLargeError();
    throw error;
  }
  if (!decompressed) throw new DecodeError('malformed', 'Failed to decompress data.');
  return decompressed;
}

/** Where the JSON starts: its first character that is not whitespace. */
export function firstSignificantChar(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') return char;
  }
  return undefined;
}

const looksLikeJson = (text: string): boolean => {
  const first = firstSignificantChar(text);
  return first === '{' || first === '[';
};

/** Standard and URL-safe alphabets, padding optional, spaces for URL-decoded `+`. */
const base64Text = /^[A-Za-z0-9+/=\s_-]+$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Django tries base64 on every payload and keeps the original when that fails (`data=<base64>` from
 * posthog-js beacons, posthog-python, the mobile SDKs; padding may be missing, `+` may have become a
 * space). Decoding JSON text as base64 would succeed with garbage, so only
 * text that is not already JSON, is made of base64 characters and decodes to UTF-8 JSON is unwrapped.
 * Base64 only shrinks data, so the body limit caps it too.
 */
export function unwrapBase64(text: string): string {
  if (looksLikeJson(text) || !base64Text.test(text)) return text;
  let decoded: string;
  try {
    decoded = strictUtf8.decode(Buffer.from(text.replaceAll(' ', '+'), 'base64'));
  } catch {
    return text;
  }
  return looksLikeJson(decoded) ? decoded : text;
}
