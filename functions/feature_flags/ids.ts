import { NotFoundError } from '../shared/http/errors';
import type { HttpEvent } from '../shared/http/types';

/** The flag id of the path; anything but a positive integer names no flag (404, as DRF's lookup). */
export function flagIdOf(event: HttpEvent): number {
  const raw = event.pathParameters?.id ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw new NotFoundError();
  return Number(raw);
}
