import * as z from 'zod';
import { components } from './registry';

/**
 * Shapes every resource shares. Response schemas describe exactly what Flock sends (field by
 * field); they are what the OpenAPI document publishes and what the serializer tests check.
 */

/** `{type, code, detail, attr}` (drf-exceptions-hog): every error of every endpoint. */
export const errorBodySchema = /* @__PURE__ */ z
  .object({
    type: z.string(),
    code: z.string(),
    detail: z.string(),
    attr: z.string().nullable(),
  })
  .register(components, { id: 'Error', description: "Every error: PostHog's {type, code, detail, attr}." });

/** UserBasic (`posthog/api/shared.py`): how a user is embedded in other objects (`created_by`, `updated_by`…). */
export const userBasicSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    uuid: z.uuid(),
    distinct_id: z.string(),
    first_name: z.string(),
    email: z.string(),
  })
  .register(components, { id: 'UserBasic' });
export type UserBasic = z.infer<typeof userBasicSchema>;

/** A user as UserBasic. */
export function userBasic(user: {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  email: string;
}): UserBasic {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinct_id,
    first_name: user.first_name,
    email: user.email,
  };
}

/** The list envelope (`count`, `next`, `previous`, `results`) around `item`. */
export function paginatedSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      count: z.number().int(),
      next: z.url().nullable(),
      previous: z.url().nullable(),
      results: z.array(item),
    })
    .register(components, { id });
}

/** The list envelope whose `count` is null when it cannot be known within a bounded read. */
export function boundedPaginatedSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      count: z.number().int().nullable(),
      next: z.url().nullable(),
      previous: z.url().nullable(),
      results: z.array(item),
    })
    .register(components, { id });
}

/** PostHog's organization membership levels: 1 member, 8 admin, 15 owner. */
export const membershipLevelSchema = /* @__PURE__ */ z.union([z.literal(1), z.literal(8), z.literal(15)]);

/** ISO 8601 date-time, as every timestamp of the API. */
export const dateTime = () => z.iso.datetime({ offset: true });

/** How deep and large a free-form JSON field may be: well inside what one DynamoDB item can hold. */
const maxJsonDepth = 16;
const maxJsonBytes = 16 * 1024;
/** DynamoDB numbers: magnitudes between 1e-130 and 1e126, else the write itself fails. */
const storableNumber = (value: number) =>
  Number.isFinite(value) && (value === 0 || (Math.abs(value) >= 1e-130 && Math.abs(value) < 1e126));

function storable(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return storableNumber(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth >= maxJsonDepth) return false;
  // The DynamoDB marshaller tells an object's type by its `constructor`: an own key of that name
  // makes it refuse the object as a class instance (or take `{"constructor":{"name":"Set"}}` for a Set).
  if (!Array.isArray(value) && Object.hasOwn(value, 'constructor')) return false;
  return Object.values(value).every((inner) => storable(inner, depth + 1));
}

/**
 * A free-form JSON field (an object or an array) Flock can store: at most 16 levels deep and 16 KB,
 * numbers within DynamoDB's range, no key named `constructor`. Other values would fail the write, as
 * a 500 instead of a 400.
 */
export function storableJson<T extends z.ZodType>(schema: T) {
  return schema.refine(
    (value) => storable(value, 0) && Buffer.byteLength(JSON.stringify(value)) <= maxJsonBytes,
    {
      message: `Must be JSON of at most ${maxJsonDepth} levels and ${maxJsonBytes / 1024} KB, numbers within ±1e126, no key named "constructor".`,
    },
  );
}
