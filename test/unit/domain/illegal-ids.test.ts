import { isIllegalDistinctId } from '../../../functions/shared/domain/illegal-ids';

describe('isIllegalDistinctId', () => {
  it.each([
    'anonymous',
    'Anonymous',
    'GUEST',
    'distinctid',
    'distinct_id',
    'id',
    'not_authenticated',
    'email',
    'undefined',
    'UNDEFINED',
    'true',
    'False',
  ])('refuses %s whatever its case', (id) => {
    expect(isIllegalDistinctId(id)).toBe(true);
  });

  it.each(['[object Object]', 'NaN', 'None', 'none', 'null', '0'])('refuses %s exactly', (id) => {
    expect(isIllegalDistinctId(id)).toBe(true);
  });

  it.each(['nan', 'NULL', 'nOnE', '00', '[object object]'])(
    'accepts %s, which differs in case or content',
    (id) => {
      expect(isIllegalDistinctId(id)).toBe(false);
    },
  );

  it.each([`'anonymous'`, `"guest"`, `"null"`, `'NaN'`, `"[object Object]"`])(
    'refuses the quoted %s',
    (id) => {
      expect(isIllegalDistinctId(id)).toBe(true);
    },
  );

  it.each(['', ' ', '\t\n'])('refuses a blank id %j', (id) => {
    expect(isIllegalDistinctId(id)).toBe(true);
  });

  it('accepts an ordinary distinct id', () => {
    expect(isIllegalDistinctId('user-42')).toBe(false);
    expect(isIllegalDistinctId('01a1ff87-edcd-7b3e-a1c2-5f0e6d2b9c10')).toBe(false);
  });
});
