import { scopeObjects } from '../../../functions/shared/auth/scopes';
import { validationErrorFromZod } from '../../../functions/shared/http/errors';
import { personalApiKeyCreateSchema } from '../../../functions/shared/schemas/personal-api-key';

/** The 400 a body gets, as the route answers it. */
function refusal(body: unknown) {
  const parsed = personalApiKeyCreateSchema.safeParse(body);
  return parsed.success ? undefined : validationErrorFromZod(parsed.error).toBody();
}

describe('the personal API key create body', () => {
  it('keeps each scope once, in the order given', () => {
    expect(
      personalApiKeyCreateSchema.parse({ label: 'k', scopes: ['cohort:read', '*', 'cohort:read'] }),
    ).toEqual({
      label: 'k',
      scopes: ['cohort:read', '*'],
    });
  });

  it('leaves scopes out when not given (the route makes the key `*`)', () => {
    expect(personalApiKeyCreateSchema.parse({ label: 'k' })).toEqual({ label: 'k' });
  });

  it('refuses scopes that are not a list, naming the field', () => {
    expect(refusal({ label: 'k', scopes: '*' })).toMatchObject({ type: 'validation_error', attr: 'scopes' });
  });

  it('bounds the list and each entry, so no body can grow the key item', () => {
    const max = scopeObjects.length * 2 + 1;
    expect(refusal({ label: 'k', scopes: Array.from({ length: max + 1 }, () => '*') })).toMatchObject({
      attr: 'scopes',
      detail: `Ensure this field has no more than ${max} elements.`,
    });
    expect(refusal({ label: 'k', scopes: [`${'x'.repeat(65)}:read`] })).toMatchObject({ attr: 'scopes__0' });
  });
});
