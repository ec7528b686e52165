import { ValidationError } from '../../http/errors';
import { compileRegex } from '../../domain/regex';
import { materialisedColumns, personPropertiesColumn, storedPropertiesColumn } from '../hogql/events-table';
import { identifier, jsonPath, stringLiteral } from '../hogql/sql';
import type { Properties, PropertyFilter, PropertyGroup } from './schema';

/**
 * PostHog's property filters as SQL over `eventsRelation`, with the semantics of HogQL's
 * property_to_expr (posthog/hogql/property.py): properties read as nullable text; `exact` and
 * `is_not` compare text, case-sensitively (a list is any-of / none-of); a missing property never
 * matches `exact`, `icontains`, `regex` or a comparison, and always matches `is_not`, `not_icontains`
 * and `not_regex`; `gt`/`lt`… compare numbers. Values reach SQL only as literals; regular expressions
 * run on DuckDB's RE2 (linear time) and are checked with RE2 first, so a bad pattern is a 400.
 */

/** A property's value as nullable text: its materialised column, or its key in the JSON text. */
export function propertyExpression(source: 'event' | 'person', key: string): string {
  if (source === 'person')
    return `json_extract_string(${identifier(personPropertiesColumn)}, ${stringLiteral(jsonPath([key]))})`;
  const column = materialisedColumns.get(key);
  return column !== undefined
    ? identifier(column)
    : `json_extract_string(${identifier(storedPropertiesColumn)}, ${stringLiteral(jsonPath([key]))})`;
}

/** A filter value as the text a property holds (`true` → `'true'`, `5` → `'5'`). */
const textOf = (value: string | number | boolean): string => stringLiteral(String(value));

function valuesOf(filter: PropertyFilter, attr: string): (string | number | boolean)[] {
  const { value } = filter;
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0))
    throw new ValidationError('invalid_input', `Operator ${filter.operator} needs a value`, attr);
  return Array.isArray(value) ? value : [value];
}

function single(filter: PropertyFilter, attr: string): string | number | boolean {
  const values = valuesOf(filter, attr);
  if (values.length !== 1)
    throw new ValidationError('invalid_input', `Operator ${filter.operator} takes one value`, attr);
  return values[0]!;
}

function numberOf(filter: PropertyFilter, attr: string): string {
  const value = Number(single(filter, attr));
  if (!Number.isFinite(value))
    throw new ValidationError('invalid_input', `Operator ${filter.operator} needs a number`, attr);
  return `${value}::DOUBLE`;
}

function regexOf(filter: PropertyFilter, attr: string): string {
  const pattern = String(single(filter, attr));
  if (compileRegex(pattern) === null)
    throw new ValidationError('invalid_input', `Invalid regular expression: ${pattern}`, attr);
  return stringLiteral(pattern);
}

const comparisons = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** One filter as a boolean SQL expression (never null). `attr` names it in errors. */
export function propertyFilterSql(filter: PropertyFilter, attr: string): string {
  const value = propertyExpression(filter.type, filter.key);
  switch (filter.operator) {
    case 'exact':
      return `coalesce(${value} IN (${valuesOf(filter, attr).map(textOf).join(', ')}), false)`;
    case 'is_not':
      return `coalesce(${value} NOT IN (${valuesOf(filter, attr).map(textOf).join(', ')}), true)`;
    case 'icontains':
      return `coalesce(contains(lower(${value}), lower(${textOf(single(filter, attr))})), false)`;
    case 'not_icontains':
      return `coalesce(NOT contains(lower(${value}), lower(${textOf(single(filter, attr))})), true)`;
    case 'regex':
      return `coalesce(regexp_matches(${value}, ${regexOf(filter, attr)}), false)`;
    case 'not_regex':
      return `coalesce(NOT regexp_matches(${value}, ${regexOf(filter, attr)}), true)`;
    case 'is_set':
      return `(${value} IS NOT NULL)`;
    case 'is_not_set':
      return `(${value} IS NULL)`;
    default:
      return `coalesce(TRY_CAST(${value} AS DOUBLE) ${comparisons[filter.operator]} ${numberOf(filter, attr)}, false)`;
  }
}

type Item = PropertyFilter | PropertyGroup | PropertyGroup['values'][number];

function joined(type: 'AND' | 'OR', items: readonly Item[], attr: string): string {
  const parts = items.map((item, index) =>
    'values' in item ? groupSql(item, `${attr}__${index}`) : propertyFilterSql(item, `${attr}__${index}`),
  );
  if (parts.length === 0) return 'true';
  return `(${parts.join(type === 'AND' ? ' AND ' : ' OR ')})`;
}

function groupSql(group: { type: 'AND' | 'OR'; values: readonly Item[] }, attr: string): string {
  return joined(group.type, group.values, `${attr}__values`);
}

/** A list of filters (AND-ed) or a property group, as SQL; `true` when there are none. */
export function propertiesSql(properties: Properties, attr: string): string {
  if (!properties) return 'true';
  return Array.isArray(properties) ? joined('AND', properties, attr) : groupSql(properties, attr);
}
