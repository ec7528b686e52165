import { fitsDefinition } from '../../../functions/shared/domain/property-definitions';

describe('fitsDefinition', () => {
  it('takes names of up to 400 characters and 800 UTF-8 bytes', () => {
    expect(fitsDefinition('a'.repeat(400))).toBe(true);
    expect(fitsDefinition('a'.repeat(401))).toBe(false);
    // '€' is 3 UTF-8 bytes: 266 of them are 798 bytes, 267 are 801.
    expect(fitsDefinition('€'.repeat(266))).toBe(true);
    expect(fitsDefinition('€'.repeat(267))).toBe(false);
    // An emoji is 2 UTF-16 units and 4 bytes: 200 of them are 400 units and 800 bytes.
    expect(fitsDefinition('😀'.repeat(200))).toBe(true);
    expect(fitsDefinition(`${'😀'.repeat(199)}€€`)).toBe(false);
  });
});
