import * as z from 'zod';
import {
  HttpError,
  ServiceUnavailableError,
  validationErrorFromZod,
} from '../../../../functions/shared/http/errors';

describe('validationErrorFromZod', () => {
  const schema = z.object({ name: z.string(), filters: z.object({ groups: z.array(z.number()) }) });

  it('names a missing field with code required', () => {
    const result = schema.safeParse({ filters: { groups: [] } });
    const error = validationErrorFromZod(result.error!);
    expect(error.toBody()).toEqual({
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'name',
    });
    expect(error.statusCode).toBe(400);
  });

  it('joins nested field paths with __ and uses invalid_input for a wrong type', () => {
    const result = schema.safeParse({ name: 'x', filters: { groups: ['a'] } });
    expect(validationErrorFromZod(result.error!).toBody()).toMatchObject({
      code: 'invalid_input',
      attr: 'filters__groups__0',
    });
  });
});

describe('HttpError', () => {
  it('exposes client errors and hides unexpected server errors', () => {
    expect(new HttpError(400, 't', 'c', 'd').expose).toBe(true);
    expect(new HttpError(500, 't', 'c', 'd').expose).toBe(false);
  });

  it('lets a 503 tell the client when to retry', () => {
    const error = new ServiceUnavailableError('try later');
    expect(error.expose).toBe(true);
    expect(error.headers).toEqual({ 'Retry-After': '5' });
  });
});
