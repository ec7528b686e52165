import type { Fixtures } from './types';

/** How a private-API request carries (or fails to carry) its personal API key. */
export interface AuthVariant {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Extra query parameters, already encoded. */
  readonly query?: string;
}

export const unknownPersonalKey = `phx_${'z'.repeat(43)}`;
export const unknownProjectKey = `phc_${'q'.repeat(43)}`;

/** A string fetch accepts as a header value (Latin-1) that is UTF-8 bytes on the wire. */
export const utf8AsLatin1 = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

export function validAuth(fixtures: Fixtures): AuthVariant {
  return { name: 'valid key', headers: { authorization: `Bearer ${fixtures.personalApiKey}` } };
}

/** Every way of presenting a personal API key, valid or not. */
export function authVariants(fixtures: Fixtures): AuthVariant[] {
  const key = fixtures.personalApiKey;
  return [
    validAuth(fixtures),
    { name: 'no key', headers: {} },
    { name: 'unknown key', headers: { authorization: `Bearer ${unknownPersonalKey}` } },
    { name: 'empty bearer', headers: { authorization: 'Bearer ' } },
    { name: 'bearer of spaces', headers: { authorization: 'Bearer      ' } },
    { name: 'basic scheme', headers: { authorization: 'Basic dXNlcjpwYXNz' } },
    { name: 'lower-case scheme', headers: { authorization: `bearer ${key}` } },
    { name: '3 KB key', headers: { authorization: `Bearer ${'k'.repeat(3000)}` } },
    { name: 'UTF-8 key', headers: { authorization: `Bearer ${utf8AsLatin1('ñ😀\u202e')}` } },
    { name: 'two keys', headers: { authorization: `Bearer ${key}, Bearer ${unknownPersonalKey}` } },
    { name: 'project key as bearer', headers: { authorization: `Bearer ${fixtures.projectApiKey}` } },
    { name: 'key in query', headers: {}, query: `personal_api_key=${encodeURIComponent(key)}` },
    { name: 'unknown key in query', headers: {}, query: `personal_api_key=${unknownPersonalKey}` },
    { name: 'empty key in query', headers: {}, query: 'personal_api_key=' },
    { name: 'repeated key in query', headers: {}, query: `personal_api_key=${key}&personal_api_key=${key}` },
  ];
}

/** Joins query strings, dropping empty ones. */
export const joinQuery = (...parts: (string | undefined)[]): string | undefined => {
  const joined = parts.filter((part) => part !== undefined && part !== '').join('&');
  return joined === '' ? undefined : joined;
};
