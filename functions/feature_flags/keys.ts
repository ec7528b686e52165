import { FlagKeyTakenError } from '../shared/db/feature-flags';
import { ValidationError } from '../shared/http/errors';
import { flagKeyPattern, flagKeySchema } from './schema';

/** PostHog's `validate_key` pattern rule. */
export function checkKeyPattern(key: string): void {
  if (!flagKeyPattern.test(key))
    throw new ValidationError(
      'invalid_key',
      'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
      'key',
    );
}

/** Whether a text could be the key of a flag: what creating and updating one accept. */
export const couldBeFlagKey = (text: string): boolean =>
  flagKeySchema.safeParse(text).success && flagKeyPattern.test(text);

/** Runs a write that claims a flag key; another live flag holding it is PostHog's `unique` error. */
export async function withUniqueKey<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof FlagKeyTakenError)
      throw new ValidationError('unique', 'There is already a feature flag with this key.', 'key');
    throw error;
  }
}
