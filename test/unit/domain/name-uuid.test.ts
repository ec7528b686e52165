import { v5 as uuidv5 } from 'uuid';
import { eventDefinitionIdFor } from '../../../functions/shared/domain/definitions';
import { nameUuid } from '../../../functions/shared/domain/name-uuid';
import { personUuidFor } from '../../../functions/shared/domain/persons';

const namespace = '5833a2c3-1949-4847-9f87-9efd073a8180';

describe('nameUuid', () => {
  it('gives a well-formed name the uuid v5 the uuid package gives it, emoji included', () => {
    for (const name of ['signup', '', 'ñ', '😀 launch', '7:user-1'])
      expect(nameUuid(name, namespace)).toBe(uuidv5(name, namespace));
  });

  it('hashes a name with a lone surrogate as WTF-8 instead of throwing a URIError', () => {
    // Prepare
    const name = 'a\ud800';
    const wtf8 = Uint8Array.from([0x61, 0xed, 0xa0, 0x80]);

    // Act
    const id = nameUuid(name, namespace);

    // Assess
    expect(() => uuidv5(name, namespace)).toThrow(URIError);
    expect(id).toBe(uuidv5(wtf8, namespace));
  });

  it('keeps names that differ only in their lone surrogates apart', () => {
    const ids = ['a\ud800', 'a\udfff', 'a\ufffd', 'a'].map((name) => nameUuid(name, namespace));
    expect(new Set(ids).size).toBe(4);
  });

  it('gives persons and event definitions with lone surrogates an id', () => {
    expect(personUuidFor(7, '\ud800')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
    expect(eventDefinitionIdFor(7, 'x\udc00')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
  });
});
