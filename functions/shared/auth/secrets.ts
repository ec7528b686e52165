import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: 43 characters after the prefix (PostHog's `phc_`/`phx_` shape). */
function randomToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export const generateProjectToken = (): string => randomToken('phc_');
export const generatePersonalApiKey = (): string => randomToken('phx_');

/** Personal API keys are stored only as this hash (PostHog's `sha256$<hex>` scheme, without the prefix). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** `phx_...abcd`: what is shown of a key after its creation (PostHog's mask_value). */
export function maskKey(value: string): string {
  return `${value.slice(0, 4)}...${value.slice(-4)}`;
}
