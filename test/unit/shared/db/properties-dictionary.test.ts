import { createHash } from 'node:crypto';
import { propertiesDictionary } from '../../../../functions/shared/db/properties-dictionary';

describe('propertiesDictionary', () => {
  it('is the dictionary event items were written with, byte for byte', () => {
    // Event items store properties deflated with this dictionary (`pd`), and inflating them needs the
    // same bytes: a changed dictionary makes every stored `pd` unreadable. Do not update this hash:
    // add the new dictionary beside this one, write it under a new attribute name (as `pd` was added
    // beside `pz`), and keep reading `pd` with this one.
    expect(createHash('sha256').update(propertiesDictionary).digest('hex')).toBe(
      '823c90fac77b04215152d42dbe5388a64e0495611f5e55d0d7cfdb2ad3a3834b',
    );
  });

  it('fits in deflate’s 32 KB window with room left for the properties that refer back to it', () => {
    expect(propertiesDictionary.length).toBeLessThanOrEqual(8 * 1024);
  });
});
