import type { User } from '../shared/db/users';
import { NotFoundError } from '../shared/http/errors';
import type { HttpEvent } from '../shared/http/types';

/**
 * The user a `/users/:user_uuid/` path names: `@me` or the caller's own uuid. Any other user is
 * 404, as PostHog's user queryset holds only the caller for a non-staff user.
 */
export function userOfPath(event: HttpEvent, caller: User): User {
  const lookup = event.pathParameters?.user_uuid;
  if (lookup === '@me' || lookup === caller.uuid) return caller;
  throw new NotFoundError();
}
