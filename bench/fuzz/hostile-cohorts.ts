import { nestedArrays } from './hostile';
import type { Fixtures, FuzzRequest } from './types';

/**
 * Hostile cohort graphs: definitions each valid in shape that multiply when nested cohorts are written
 * out in place (wide references to the fixture cohort, in cohorts and in flags), references that loop
 * or name nothing, legacy groups of the wrong type, deep JSON in multipart fields, and a static cohort
 * turned dynamic. Each must answer 2xx or a 4xx in the documented shape, quickly; the flags requests
 * that follow evaluate whatever was accepted.
 */
export function hostileCohortFuzz(f: Fixtures): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  const cohorts = `/api/projects/${f.projectId}/cohorts/`;
  const auth = { authorization: `Bearer ${f.personalApiKey}` };
  const json = (method: string, path: string, label: string, body: unknown): void => {
    requests.push({
      method,
      path,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      label: `hostile cohort graph: ${label}`,
    });
  };
  const multipart = (label: string, fields: Record<string, string>): void => {
    const boundary = 'fuzzcohortboundary';
    const parts = Object.entries(fields).map(
      ([name, value]) =>
        `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
    requests.push({
      method: 'POST',
      path: cohorts,
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: `${parts.join('')}--${boundary}--\r\n`,
      label: `hostile cohort graph: ${label}`,
    });
  };
  const ref = (value: unknown) => ({ key: 'id', type: 'cohort', value });
  const tree = (type: string, values: unknown[]) => ({ properties: { type, values } });
  const refs = (value: unknown, times: number) => Array.from({ length: times }, () => ref(value));
  /** `depth` groups, each holding `width` copies of the next, around one reference to the fixture. */
  const nestedGroups = (depth: number, width: number): unknown => {
    let group: unknown = { type: 'AND', values: [ref(f.cohortId)] };
    for (let level = 1; level < depth; level++)
      group = { type: level % 2 ? 'OR' : 'AND', values: Array.from({ length: width }, () => group) };
    return group;
  };

  for (const times of [1, 50, 200, 201, 5_000])
    for (const type of ['AND', 'OR'])
      json('POST', cohorts, `${times} ${type} references to one cohort`, {
        name: `fuzz ${times} refs`,
        filters: tree(type, refs(f.cohortId, times)),
      });
  for (const [depth, width] of [
    [10, 2],
    [11, 2],
    [6, 5],
    [50, 1],
  ] as const)
    json('POST', cohorts, `groups ${depth} deep, ${width} wide`, {
      name: 'fuzz nested groups',
      filters: { properties: nestedGroups(depth, width) },
    });
  for (const value of [0, -1, 1e15, Number.MAX_SAFE_INTEGER + 2, '1e3', 'abc', null, [f.cohortId], { id: 1 }])
    json('POST', cohorts, `reference to ${JSON.stringify(value)}`, {
      name: 'fuzz bad ref',
      filters: tree('AND', [ref(value)]),
    });
  for (const properties of [5, 'a', true, [1], [null], [[]], { a: { b: 1 } }])
    json('POST', cohorts, `legacy groups properties ${JSON.stringify(properties)}`, {
      name: 'fuzz legacy',
      groups: [{ properties }],
    });
  json('PATCH', `${cohorts}${f.cohortId}/`, 'the fixture names itself', {
    filters: tree('AND', [ref(f.cohortId)]),
  });
  json('PATCH', `${cohorts}${f.cohortId}/`, 'the fixture names itself 200 times, negated', {
    filters: tree(
      'OR',
      refs(f.cohortId, 200).map((leaf) => ({ ...leaf, negation: true })),
    ),
  });
  json('POST', cohorts, 'a static cohort of 200 references', {
    name: 'fuzz static',
    is_static: true,
    filters: tree('AND', refs(f.cohortId, 200)),
  });
  json('POST', cohorts, 'a static cohort with filters of no known shape', {
    name: 'fuzz static junk',
    is_static: true,
    filters: { properties: { type: 'XOR', values: 5 } },
  });
  for (const depth of [100, 129, 5_000, 20_000])
    multipart(`multipart filters ${depth} levels deep`, {
      name: 'fuzz multipart',
      filters: JSON.stringify(tree('AND', [{ key: 'a', type: 'person', value: 'x' }])).replace(
        '"x"',
        nestedArrays(depth),
      ),
    });
  multipart('multipart 200 references', {
    name: 'fuzz multipart refs',
    filters: JSON.stringify(tree('AND', refs(f.cohortId, 200))),
  });
  for (const times of [1, 200, 2_000])
    json('POST', `/api/projects/${f.projectId}/feature_flags/`, `a flag naming the cohort ${times} times`, {
      key: `fuzz-cohort-flag-${times}`,
      filters: { groups: [{ properties: refs(f.cohortId, times), rollout_percentage: 100 }] },
    });
  return requests;
}
