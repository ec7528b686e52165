import { v5 as uuidv5 } from 'uuid';

/** A surrogate code unit that is not half of a pair (in `u` mode a pair reads as one code point). */
const loneSurrogate = /\p{Surrogate}/u;

/** UTF-8, except that a lone surrogate is encoded like any other code point (WTF-8). */
function wtf8Bytes(text: string): Uint8Array {
  const bytes: number[] = [];
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000)
      bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f),
      );
  }
  return Uint8Array.from(bytes);
}

/**
 * The uuid v5 of a name in a namespace. Names come from clients, and JSON can carry lone surrogates
 * (`"\ud800"`), which have no UTF-8 form: `uuid` hashes a string's UTF-8 through encodeURIComponent,
 * which throws a URIError on them. Such a name is hashed as WTF-8 (the surrogate as its own three
 * bytes), so it still gets an id, distinct from every other name's; a well-formed name keeps the id
 * `uuid` has always given it.
 */
export function nameUuid(name: string, namespace: string): string {
  return uuidv5(loneSurrogate.test(name) ? wtf8Bytes(name) : name, namespace);
}
