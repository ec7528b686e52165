import { validAuth } from './auth';
import type { Fixtures, FuzzRequest } from './types';

/** Query strings of the private API's reads: paging, the events filters, malformed query syntax. */

const pageValues = [
  '-1',
  '0',
  '1',
  '1e309',
  '1e3',
  'abc',
  '',
  '99999999999999999999',
  '1.5',
  ' 1',
  '%D9%A1',
  '0x10',
  '+5',
  '1%00',
  'NaN',
  'Infinity',
];

const badQueries = [
  '%%%',
  'a=%ZZ',
  '&&&',
  '=',
  '==',
  'limit',
  'limit[]=1',
  'limit=1&limit=2',
  'offset=1&offset=x',
  `q=${'x'.repeat(8000)}`,
  '%00=%00',
  'a=%E0%A4%A',
];

/**
 * `properties=` values: JSON lists of filters, right and wrong. The longest stay under 8 KB once
 * encoded, so that they reach the function rather than the HTTP server's header limit.
 */
const propertyFilters: string[] = [
  '[{"key":"plan","value":"pro","operator":"exact","type":"event"}]',
  '[{"key":"plan","value":["pro","free"],"operator":"exact"}]',
  '[{"key":"plan","value":"^p","operator":"regex"}]',
  '[{"key":"plan","value":"(unclosed","operator":"regex"}]',
  '[{"key":"plan","value":"(a+)+$","operator":"regex"}]',
  '[{"key":"plan","value":5,"operator":"gt"}]',
  '[{"key":"plan","value":{"a":1},"operator":"lt"}]',
  '[{"key":"plan","operator":"is_set"}]',
  '[{"key":"plan","value":"x","operator":"no_such_operator"}]',
  '[{"key":"plan","value":"2024-01-01","operator":"is_date_before"}]',
  '[{"key":"plan","value":"garbage","operator":"is_date_after"}]',
  '[{"key":"email","value":"x","type":"person"}]',
  '[{"key":"id","value":1,"type":"cohort"}]',
  '[{"key":"tag_name","value":"a","type":"element"}]',
  '[{"key":"selector","value":"div > a:nth-child(99999999999)","type":"element"}]',
  '[{"key":"selector","value":"[[[[","type":"element"}]',
  '[{"key":"text","value":"x","type":"element","operator":"icontains"}]',
  '[{"key":null}]',
  '[{"key":{"a":1}}]',
  '[{}]',
  '[1,2,3]',
  '[[[[]]]]',
  '{"type":"AND","values":[{"type":"OR","values":[{"key":"plan","value":"pro"}]}]}',
  '{"key":"plan"}',
  '"plan"',
  'null',
  '[',
  'not json',
  '',
  JSON.stringify(Array.from({ length: 150 }, (_, i) => ({ key: `k${i}`, value: i }))),
  `[{"key":"${'k'.repeat(3000)}","value":"v"}]`,
  `${'['.repeat(1000)}${']'.repeat(1000)}`,
];

const timeValues = [
  'garbage',
  '',
  '2024-13-01',
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '0',
  '99999999999999',
  '2024-01-01T00:00:00+99:00',
  'now',
  '-1d',
  '1e309',
];

const cursors = [
  'garbage',
  '',
  Buffer.from('["",""]').toString('base64url'),
  Buffer.from('[1,2]').toString('base64url'),
  Buffer.from('["x","y"]').toString('base64url'),
  Buffer.from('["2024-01-01T00:00:00.000Z","00000000-0000-0000-0000-000000000000"]').toString('base64url'),
  Buffer.from(`["${'9'.repeat(3000)}","${'f'.repeat(3000)}"]`).toString('base64url'),
  Buffer.from('["+275760-09-13T00:00:00.000Z","ñ"]').toString('base64url'),
  Buffer.from('null').toString('base64url'),
  '%%%',
];

export function queryFuzz(f: Fixtures): FuzzRequest[] {
  const project = `/api/projects/${f.projectId}`;
  const requests: FuzzRequest[] = [];
  const get = (path: string, query: string): void => {
    requests.push({
      method: 'GET',
      path,
      query,
      headers: validAuth(f).headers,
      label: `GET ${path}?${query.slice(0, 80)}`,
    });
  };
  const lists = [
    '/api/projects/',
    '/api/personal_api_keys/',
    `${project}/event_definitions/`,
    `${project}/events/`,
    `${project}/feature_flags/`,
  ];
  for (const path of lists) {
    for (const value of pageValues) {
      get(path, `limit=${value}`);
      get(path, `offset=${value}`);
    }
    for (const query of badQueries) get(path, query);
    get(path, 'limit=1&offset=99999999999');
  }

  const events = `${project}/events/`;
  for (const filters of propertyFilters) get(events, `properties=${encodeURIComponent(filters)}`);
  for (const value of timeValues) {
    get(events, `after=${encodeURIComponent(value)}`);
    get(events, `before=${encodeURIComponent(value)}`);
  }
  get(events, 'after=2030-01-01&before=2020-01-01');
  for (const cursor of cursors) get(events, `cursor=${encodeURIComponent(cursor)}`);
  for (const [name, values] of Object.entries({
    event: ['', '$pageview', 'ñ😀', 'e'.repeat(3000), '%00', 'a,b'],
    distinct_id: ['', 'fuzz-1', 'ñ😀', 'd'.repeat(3000), '%00', '1'],
    person_id: ['', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', 'p'.repeat(3000), '%FF'],
    orderBy: [
      '["timestamp"]',
      '["-timestamp"]',
      '["event"]',
      'timestamp',
      '[',
      '[]',
      '["timestamp","-timestamp"]',
      'null',
    ],
    format: ['csv', 'json', 'xml', '', 'CSV', 'csv&limit=100000'],
  }))
    for (const value of values)
      get(events, `${name}=${value.includes('&') ? value : encodeURIComponent(value)}`);
  get(events, 'format=csv&limit=100000&properties=%5B%5D&event=fuzz%20event&after=2000-01-01');
  get(
    events,
    `event=fuzz%20event&distinct_id=fuzz-1&person_id=x&properties=${encodeURIComponent(propertyFilters[0]!)}&orderBy=%5B%22timestamp%22%5D`,
  );

  const single = `${project}/events/${f.eventUuid}/`;
  for (const query of ['format=csv', 'format=xml', 'format=', 'format=csv&format=json']) get(single, query);

  const values = `${project}/events/values/`;
  for (const query of [
    '',
    'key=',
    'key=plan',
    'key=custom_event',
    'key=custom_event&value=FUZZ',
    `key=${'k'.repeat(3000)}`,
    'key=%00',
    `key=${encodeURIComponent('ñ😀')}`,
    'key=plan&value=',
    `key=plan&value=${'v'.repeat(3000)}`,
    'key=a&key=b',
    'key=$browser',
    'format=csv&key=plan',
    'value=x',
  ])
    get(values, query);

  const definitions = `${project}/event_definitions/`;
  for (const query of [
    'search=',
    'search=fuzz',
    `search=${'s'.repeat(3000)}`,
    'search=%00',
    'search=(',
    'event_type=event',
    'event_type=event_custom',
    'event_type=event_posthog',
    'event_type=nope',
    'event_type=',
    'search=a&search=b',
  ])
    get(definitions, query);
  return requests;
}

/** Pages of the project's stored events, newest first, until the fuzz events are all read back. */
export function storedEventReads(f: Fixtures): FuzzRequest[] {
  const path = `/api/projects/${f.projectId}/events/`;
  return Array.from({ length: 40 }, (_, page) => ({
    method: 'GET',
    path,
    query: `limit=100&offset=${page * 100}`,
    headers: validAuth(f).headers,
    label: `GET ${path} page ${page} (stored hostile events read back)`,
  }));
}
