import * as z from 'zod';
import { eventFilterOperators } from '../../domain/event-filters';
import { validationErrorFromZod } from '../../http/errors';

/**
 * The request shapes of PostHog's insight queries (TrendsQuery, FunnelsQuery: the TS schema in
 * frontend/src/queries/schema/schema-general.ts), as far as Flock runs them. Every list, string and
 * number is bounded; objects are strict, as PostHog's pydantic models (`extra="forbid"`), so a field
 * Flock would otherwise ignore is a 400 naming it. Display-only fields are accepted and ignored.
 */

export const insightBounds = {
  series: 20,
  properties: 50,
  listValues: 500,
  keyLength: 400,
  valueLength: 10_000,
  nameLength: 400,
  breakdownLimit: 1_000,
  buckets: 10_000,
} as const;

const key = z.string().min(1).max(insightBounds.keyLength);
const name = z.string().max(insightBounds.nameLength);
const scalar = z.union([z.string().max(insightBounds.valueLength), z.number(), z.boolean()]);

/** An event or person property filter (`EventPropertyFilter`, `PersonPropertyFilter`). */
const propertyFilter = z.strictObject({
  type: z.enum(['event', 'person']),
  key,
  operator: z.enum(eventFilterOperators).default('exact'),
  value: z.union([scalar, z.array(scalar).max(insightBounds.listValues), z.null()]).optional(),
  label: name.nullish(),
});
export type PropertyFilter = z.infer<typeof propertyFilter>;

/** PostHog's `PropertyGroupFilter`: two levels (AND/OR of AND/OR groups of filters), as its UI writes. */
const innerGroup = z.strictObject({
  type: z.enum(['AND', 'OR']),
  values: z.array(propertyFilter).max(insightBounds.properties),
});
const propertyGroup = z.strictObject({
  type: z.enum(['AND', 'OR']),
  values: z.array(z.union([propertyFilter, innerGroup])).max(insightBounds.properties),
});
export type PropertyGroup = z.infer<typeof propertyGroup>;
export const properties = z
  .union([z.array(propertyFilter).max(insightBounds.properties), propertyGroup])
  .nullish();
export type Properties = z.infer<typeof properties>;

export const baseMaths = ['total', 'dau', 'weekly_active', 'monthly_active', 'unique_session'] as const;
const propertyMaths = ['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const;
export type SeriesMath = (typeof baseMaths)[number] | (typeof propertyMaths)[number];

/** An `EventsNode`: `event` null means all events. */
const eventsNode = z.strictObject({
  kind: z.literal('EventsNode'),
  event: name.nullish(),
  name: name.nullish(),
  custom_name: name.nullish(),
  math: z.enum([...baseMaths, ...propertyMaths]).nullish(),
  math_property: key.nullish(),
  math_property_type: z.enum(['event_properties', 'person_properties']).nullish(),
  properties,
  version: z.number().nullish(),
});
export type EventsNode = z.infer<typeof eventsNode>;

const dateText = z.string().min(1).max(64);
const dateRange = z
  .strictObject({
    date_from: dateText.nullish(),
    date_to: dateText.nullish(),
    explicitDate: z.boolean().nullish(),
  })
  .nullish();
export type DateRange = z.infer<typeof dateRange>;

const breakdownFilter = z
  .strictObject({
    breakdown: key.nullish(),
    breakdown_type: z.enum(['event', 'person']).nullish(),
    breakdown_limit: z.int().min(1).max(insightBounds.breakdownLimit).nullish(),
    breakdown_hide_other_aggregation: z.boolean().nullish(),
  })
  .nullish();
export type BreakdownFilter = z.infer<typeof breakdownFilter>;

const withoutTestAccounts = z.literal(false).nullish();

/** Fields every insight query has; the last ones Flock accepts and does not need (bookkeeping). */
const insightFields = {
  interval: z.enum(['hour', 'day', 'week', 'month']).nullish(),
  dateRange,
  properties,
  filterTestAccounts: withoutTestAccounts,
  breakdownFilter,
  modifiers: z.looseObject({}).nullish(),
  tags: z.looseObject({}).nullish(),
  version: z.number().nullish(),
  dataColorTheme: z.number().nullish(),
  samplingFactor: z.literal(1).nullish(),
  aggregation_group_type_index: z.null().optional(),
};

export const trendsQuerySchema = z.strictObject({
  kind: z.literal('TrendsQuery'),
  series: z.array(eventsNode).min(1).max(insightBounds.series),
  compareFilter: z.strictObject({ compare: z.boolean().nullish(), compare_to: dateText.nullish() }).nullish(),
  // Display settings only; formulas are not supported.
  trendsFilter: z
    .looseObject({
      formula: z.null().optional(),
      formulas: z.null().optional(),
      formulaNodes: z.array(z.never()).nullish(),
    })
    .nullish(),
  ...insightFields,
});
export type TrendsQuery = z.infer<typeof trendsQuerySchema>;

const windowUnits = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const;

const exclusion = eventsNode.extend({
  funnelFromStep: z.int().min(0),
  funnelToStep: z.int().min(1),
});

export const funnelsQuerySchema = z.strictObject({
  kind: z.literal('FunnelsQuery'),
  series: z.array(eventsNode).min(2).max(insightBounds.series),
  funnelsFilter: z
    .looseObject({
      funnelWindowInterval: z.int().min(1).max(100_000).nullish(),
      funnelWindowIntervalUnit: z.enum(windowUnits).nullish(),
      funnelOrderType: z.enum(['ordered', 'strict', 'unordered']).nullish(),
      funnelVizType: z.literal('steps').nullish(),
      breakdownAttributionType: z.enum(['first_touch', 'last_touch']).nullish(),
      exclusions: z.array(exclusion).max(insightBounds.series).nullish(),
      funnelAggregateByHogQL: z.null().optional(),
    })
    .nullish(),
  ...insightFields,
});
export type FunnelsQuery = z.infer<typeof funnelsQuerySchema>;

/** A union's issue as its first alternative's, so that `attr` names the field inside (`properties__0__type`). */
function innermost(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  let current = issue;
  const path = [...issue.path];
  while (current.code === 'invalid_union' && current.errors[0]?.[0]) {
    current = current.errors[0][0];
    path.push(...current.path);
  }
  return { ...current, path };
}

/** `query` parsed by `schema`, or a 400 whose `attr` names the field (`series__0__math`). */
export function parseInsightQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw validationErrorFromZod(issue ? new z.ZodError([innermost(issue)]) : parsed.error);
  }
  return parsed.data;
}
