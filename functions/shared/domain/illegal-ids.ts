/**
 * Distinct ids that are never used to merge persons (PostHog's plugin-server `isDistinctIdIllegal`):
 * values an SDK sends by mistake (`"undefined"`, `"null"`, `"[object Object]"`…). Merging on them
 * would glue unrelated users into one person.
 */

const caseInsensitive = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
];

/** `NaN` and `None` are illegal, `nan` is not: these are compared exactly. */
const caseSensitive = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined'];

/** SDKs have been seen sending the same values wrapped in quotes. */
const withQuotes = (ids: readonly string[]): string[] => ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]);

const illegalIgnoringCase = new Set(withQuotes(caseInsensitive));
const illegalExactly = new Set(withQuotes(caseSensitive));

export function isIllegalDistinctId(distinctId: string): boolean {
  return (
    distinctId.trim() === '' ||
    illegalIgnoringCase.has(distinctId.toLowerCase()) ||
    illegalExactly.has(distinctId)
  );
}
