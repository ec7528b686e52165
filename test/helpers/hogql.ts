import { HogQLError } from '../../functions/shared/query/hogql/errors';

/** The HogQLError `compiling` rejects with (the test fails when it resolves or rejects otherwise). */
export async function hogqlRejection(compiling: Promise<unknown>): Promise<HogQLError> {
  const error = await compiling.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HogQLError);
  return error as HogQLError;
}
