import { compressToBase64 } from 'lz-string';
import { gzipSync } from 'node:zlib';
import { capturePaths } from '../../functions/routes';
import { unknownPersonalKey, unknownProjectKey } from './auth';
import type { HostileValue } from './hostile';
import { hostileValues, jsonWith, malformedBodies, nestedObjects, shortHostileValues } from './hostile';
import type { Prng } from './prng';
import type { Fixtures, FuzzRequest } from './types';

/**
 * Capture: events with each field hostile (the request and, for what capture accepts, the consumer
 * that stores it), odd timestamps, every encoding done wrong, and every place a token can hide.
 */

type FieldPath = readonly (string | number)[];

const eventFields: FieldPath[] = [
  ['event'],
  ['properties'],
  ['properties', 'distinct_id'],
  ['distinct_id'],
  ['$distinct_id'],
  ['timestamp'],
  ['uuid'],
  ['$set'],
  ['properties', '$set'],
];

const minorEventFields: FieldPath[] = [
  ['offset'],
  ['sent_at'],
  ['type'],
  ['messageId'],
  ['$set_once'],
  ['properties', '$set_once'],
  ['properties', '$unset'],
  ['properties', '$set', 'email'],
  ['properties', '$groups'],
  ['properties', '$groups', 'company'],
  ['properties', '$process_person_profile'],
  ['properties', '$anon_distinct_id'],
  ['properties', '$current_url'],
  ['properties', '$elements'],
  ['properties', '$elements_chain'],
  ['properties', '$ip'],
  ['properties', 'token'],
  ['properties', '$lib'],
  ['properties', 'some property'],
  ['context'],
];

/** Special events whose properties the consumer reads with meaning. */
function specialEvents(n: number): { name: string; base: Record<string, unknown>; fields: FieldPath[] }[] {
  const id = `fuzz-person-${n}`;
  return [
    {
      name: '$identify',
      base: {
        event: '$identify',
        properties: { distinct_id: id, $anon_distinct_id: `anon-${n}`, $set: { a: 1 } },
      },
      fields: [
        ['properties', '$anon_distinct_id'],
        ['properties', '$set'],
        ['properties', '$set_once'],
      ],
    },
    {
      name: '$create_alias',
      base: { event: '$create_alias', properties: { distinct_id: id, alias: `alias-${n}` } },
      fields: [['properties', 'alias']],
    },
    {
      name: '$merge_dangerously',
      base: { event: '$merge_dangerously', properties: { distinct_id: id, alias: `merged-${n}` } },
      fields: [['properties', 'alias']],
    },
    {
      name: '$groupidentify',
      base: {
        event: '$groupidentify',
        properties: { distinct_id: id, $group_type: 'company', $group_key: 'acme', $group_set: { n: 1 } },
      },
      fields: [
        ['properties', '$group_type'],
        ['properties', '$group_key'],
        ['properties', '$group_set'],
      ],
    },
    {
      name: 'identify message',
      base: { type: 'identify', userId: id, traits: { a: 1 }, $set: { b: 2 } },
      fields: [['userId'], ['traits'], ['$set']],
    },
    {
      name: 'alias message',
      base: { type: 'alias', distinct_id: id, properties: { alias: `alias-m-${n}` } },
      fields: [['properties', 'alias'], ['previousId']],
    },
  ];
}

const oddTimestamps: readonly HostileValue[] = [
  '',
  'garbage',
  '2020-13-45T25:61:61Z',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '2024-02-30',
  '1970-01-01T00:00:00+99:99',
  '2024-01-01T00:00:00Z[Europe/Paris]',
  '1e20',
  '  2024-01-01 ',
].map((text) => ({ name: `timestamp ${JSON.stringify(text)}`, json: JSON.stringify(text) }));

const oddOffsets: readonly string[] = [
  '1e20',
  '-1e20',
  '8.64e15',
  '-8.64e15',
  '"100"',
  '0.5',
  '1e309',
  'NaN',
];

export function captureFuzz(f: Fixtures, prng: Prng): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  let n = 0;
  const path = (): string => prng.pick(capturePaths);
  const baseEvent = (): Record<string, unknown> => ({
    api_key: f.projectApiKey,
    event: 'fuzz event',
    properties: { distinct_id: `fuzz-${n++}`, $lib: 'fuzz' },
  });
  const post = (
    label: string,
    body: string | Uint8Array,
    headers: Record<string, string> = {},
    query?: string,
    at = path(),
  ): void => {
    requests.push({
      method: 'POST',
      path: at,
      query,
      headers: { 'content-type': 'application/json', ...headers },
      body,
      label: `POST ${at}: ${label}`,
    });
  };

  // Every field of an event, alone and in a batch.
  for (const field of eventFields)
    for (const value of hostileValues) {
      post(`${field.join('.')} = ${value.name}`, jsonWith(baseEvent(), field, value.json));
      if (prng.chance(0.3))
        post(
          `batch[0].${field.join('.')} = ${value.name}`,
          jsonWith(
            { api_key: f.projectApiKey, batch: [baseEvent(), baseEvent()] },
            ['batch', 0, ...field],
            value.json,
          ),
          {},
          undefined,
          '/batch/',
        );
    }
  for (const field of minorEventFields)
    for (const value of shortHostileValues)
      post(`${field.join('.')} = ${value.name}`, jsonWith(baseEvent(), field, value.json));
  for (const special of specialEvents(n++))
    for (const field of special.fields)
      for (const value of shortHostileValues)
        post(
          `${special.name} ${field.join('.')} = ${value.name}`,
          jsonWith({ api_key: f.projectApiKey, ...special.base }, field, value.json),
        );
  for (const value of oddTimestamps) {
    post(value.name, jsonWith(baseEvent(), ['timestamp'], value.json));
    post(
      `sent_at ${value.name}`,
      jsonWith({ ...baseEvent(), timestamp: '2024-01-01T00:00:00Z' }, ['sent_at'], value.json),
    );
  }
  for (const offset of oddOffsets) post(`offset ${offset}`, jsonWith(baseEvent(), ['offset'], offset));

  // The request as a whole: the batch itself, the token and the project.
  for (const value of hostileValues) {
    post(
      `batch = ${value.name}`,
      jsonWith({ api_key: f.projectApiKey }, ['batch'], value.json),
      {},
      undefined,
      '/batch/',
    );
    post(`api_key = ${value.name}`, jsonWith(baseEvent(), ['api_key'], value.json));
    post(
      `project_id = ${value.name} (personal key)`,
      jsonWith({ ...baseEvent(), api_key: f.personalApiKey }, ['project_id'], value.json),
    );
  }
  const tokens: [string, Record<string, unknown>][] = [
    ['no token', { api_key: undefined }],
    ['unknown token', { api_key: unknownProjectKey }],
    ['deleted project token', { api_key: f.deletedProjectApiKey }],
    ['$token', { api_key: undefined, $token: f.projectApiKey }],
    ['token', { api_key: undefined, token: f.projectApiKey }],
    ['personal key without project', { api_key: f.personalApiKey }],
    ['personal key, project', { api_key: f.personalApiKey, project_id: f.projectId }],
    ['personal key, deleted project', { api_key: f.personalApiKey, project_id: f.deletedProjectId }],
    ['personal key, project as text', { api_key: f.personalApiKey, project_id: ` ${f.projectId} ` }],
    ['unknown personal key, project', { api_key: unknownPersonalKey, project_id: f.projectId }],
    ['token with spaces', { api_key: ` ${f.projectApiKey} ` }],
    ['3 KB token', { api_key: 't'.repeat(3000) }],
  ];
  for (const [name, fields] of tokens) post(name, JSON.stringify({ ...baseEvent(), ...fields }));
  // Keys in headers, where capture does not look: the body's missing token decides.
  for (const authorization of [`Bearer ${f.projectApiKey}`, `Bearer ${f.personalApiKey}`, 'Bearer '])
    post(
      `token only in Authorization (${authorization.slice(0, 10)})`,
      JSON.stringify({ ...baseEvent(), api_key: undefined }),
      { authorization },
    );
  post(
    'batch of 2000 events',
    JSON.stringify({ api_key: f.projectApiKey, batch: Array.from({ length: 2000 }, baseEvent) }),
    {},
    undefined,
    '/batch/',
  );
  post(
    'batch of non-objects',
    JSON.stringify({ api_key: f.projectApiKey, batch: [1, 'a', null, [], true] }),
    {},
    undefined,
    '/batch/',
  );
  post('array of events', JSON.stringify([baseEvent(), baseEvent()]));
  post('array of non-objects', JSON.stringify([f.projectApiKey, 1]));
  post(
    'event with 10k properties',
    JSON.stringify({
      ...baseEvent(),
      properties: {
        distinct_id: 'wide',
        ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, i])),
      },
    }),
  );
  post('property 40 levels deep', jsonWith(baseEvent(), ['properties', 'deep'], nestedObjects(40)));
  post('$set 40 levels deep', jsonWith(baseEvent(), ['properties', '$set', 'deep'], nestedObjects(40)));
  post(
    'property name 3 KB',
    JSON.stringify({ ...baseEvent(), properties: { distinct_id: 'long-name', ['n'.repeat(3000)]: 1 } }),
  );
  post(
    '20 group types',
    JSON.stringify({
      ...baseEvent(),
      properties: {
        distinct_id: 'groups',
        $groups: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`type-${i}`, `key-${i}`])),
      },
    }),
  );
  post(
    'group type named 3 KB',
    JSON.stringify({
      ...baseEvent(),
      properties: { distinct_id: 'groups', $groups: { ['g'.repeat(3000)]: 'k' } },
    }),
  );
  post(
    '$groupidentify of a 3 KB group type and key',
    JSON.stringify({
      api_key: f.projectApiKey,
      event: '$groupidentify',
      properties: { distinct_id: 'groups', $group_type: 't'.repeat(3000), $group_key: 'k'.repeat(3000) },
    }),
  );
  post(
    'property name empty',
    JSON.stringify({ ...baseEvent(), properties: { distinct_id: 'empty-name', '': 1 } }),
  );
  post('event name 3 KB', JSON.stringify({ ...baseEvent(), event: 'e'.repeat(3000) }));
  post(
    'event 300 KB',
    JSON.stringify({ ...baseEvent(), properties: { distinct_id: 'big', blob: 'b'.repeat(300_000) } }),
  );
  post(
    'event 1.1 MB',
    JSON.stringify({ ...baseEvent(), properties: { distinct_id: 'huge', blob: 'b'.repeat(1_100_000) } }),
  );
  post(
    'body 21 MB',
    JSON.stringify({
      ...baseEvent(),
      properties: { distinct_id: 'huge', blob: 'b'.repeat(21 * 1024 * 1024) },
    }),
  );

  // Whole bodies that are not what they claim.
  for (const malformed of malformedBodies) {
    post(`body ${malformed.name}`, malformed.body);
    post(`body ${malformed.name} as text/plain`, malformed.body, { 'content-type': 'text/plain' });
  }

  // Encodings, right and wrong.
  const valid = JSON.stringify(baseEvent());
  const gzipped = gzipSync(valid);
  const encodings: [string, string | Uint8Array, Record<string, string>, string?][] = [
    ['gzip, sniffed', gzipped, { 'content-type': 'text/plain' }],
    ['gzip-js', gzipped, { 'content-type': 'text/plain' }, 'compression=gzip-js'],
    ['gzip-js of plain JSON', valid, {}, 'compression=gzip-js'],
    [
      'gzip garbage',
      Uint8Array.from([0x1f, 0x8b, 8, 0, 9, 9, 9, 9, 9, 9]),
      { 'content-type': 'text/plain' },
      'compression=gzip-js',
    ],
    [
      'truncated gzip',
      gzipped.subarray(0, gzipped.length - 10),
      { 'content-type': 'text/plain' },
      'compression=gzip-js',
    ],
    ['gzip without magic', gzipped.subarray(2), {}, 'compression=gzip'],
    ['gzip of "undefined"', 'undefined', {}, 'compression=gzip-js'],
    ['gzip of non-JSON', gzipSync('not json'), { 'content-type': 'text/plain' }],
    ['gzip of gzip', gzipSync(gzipped), { 'content-type': 'text/plain' }],
    ['gzip bomb 64 MB', gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), { 'content-type': 'text/plain' }],
    ['Content-Encoding gzip garbage', 'definitely not gzip', { 'content-encoding': 'gzip' }],
    ['Content-Encoding gzip, truncated', gzipped.subarray(0, 15), { 'content-encoding': 'gzip' }],
    ['Content-Encoding lz64, plain', valid, { 'content-encoding': 'lz64' }],
    ['lz64', compressToBase64(valid), { 'content-type': 'text/plain' }, 'compression=lz64'],
    ['lz64 garbage', '!!!not lz64!!!', {}, 'compression=lz64'],
    ['lz64 of non-JSON', compressToBase64('nope'), {}, 'compression=lz64'],
    ['lz64 truncated', compressToBase64(valid).slice(0, 20), {}, 'compression=lz64'],
    ['lz64 empty', '', {}, 'compression=lz64'],
    [
      // lz-string compresses about 4 s per MB: a bomb past the 20 MB limit would take the whole run.
      'lz64 of 200 KB',
      compressToBase64(JSON.stringify({ ...baseEvent(), blob: 'z'.repeat(200 * 1024) })),
      {},
      'compression=lz64',
    ],
    ['unknown compression', valid, {}, 'compression=brotli'],
    ['repeated compression', gzipped, {}, 'compression=gzip-js&compression=lz64'],
    ['base64 body', Buffer.from(valid).toString('base64'), { 'content-type': 'text/plain' }],
    ['base64 garbage', 'QUJD====%%%', { 'content-type': 'text/plain' }],
    ['base64 of binary', Buffer.from([0xff, 0xfe, 0x00, 0x7b]).toString('base64'), {}],
    [
      'form data=',
      `data=${encodeURIComponent(Buffer.from(valid).toString('base64'))}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
    [
      'form data= plain JSON',
      `data=${encodeURIComponent(valid)}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
    [
      'form data= lz64',
      `data=${encodeURIComponent(compressToBase64(valid))}&compression=lz64`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
    [
      'form data= garbage',
      'data=%%%&compression=gzip-js',
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
    ['form data= empty', 'data=', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['form without data', 'api_key=x&event=y', { 'content-type': 'application/x-www-form-urlencoded' }],
    [
      'form api_key only',
      `api_key=${f.projectApiKey}&data=${encodeURIComponent(JSON.stringify({ event: 'e', distinct_id: 'd' }))}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
    ['data= without form type', `data=${encodeURIComponent(valid)}`, { 'content-type': 'text/plain' }],
    [
      'multipart',
      `--x\r\nContent-Disposition: form-data; name="data"\r\n\r\n${valid}\r\n--x--`,
      { 'content-type': 'multipart/form-data; boundary=x' },
    ],
  ];
  for (const [name, body, headers, query] of encodings) post(name, body, headers, query);

  // GET capture: the payload in the query.
  const data = (json: string): string => encodeURIComponent(Buffer.from(json).toString('base64'));
  const gets: [string, string][] = [
    ['data= base64', `data=${data(valid)}`],
    ['data= plain', `data=${encodeURIComponent(valid)}`],
    ['data= empty', 'data='],
    ['data= garbage', 'data=%%%%'],
    ['data= lz64', `data=${encodeURIComponent(compressToBase64(valid))}&compression=lz64`],
    [
      'token in query',
      `token=${f.projectApiKey}&data=${data(JSON.stringify({ event: 'q', distinct_id: 'q' }))}`,
    ],
    [
      'unknown token in query',
      `token=${unknownProjectKey}&data=${data(JSON.stringify({ event: 'q', distinct_id: 'q' }))}`,
    ],
    ['repeated data', `data=${data(valid)}&data=${data(valid)}`],
    ['ip and _', `ip=1&_=99999999999999999999&ver=1.0&data=${data(valid)}`],
    ['_ negative', `_=-5&data=${data(valid)}`],
    ['_ NaN', `_=NaN&data=${data(valid)}`],
    ['no query', ''],
    ['bad escapes', 'data=%E0%A4%A&token=%'],
  ];
  for (const [name, query] of gets) {
    const at = path();
    requests.push({ method: 'GET', path: at, query, label: `GET ${at}: ${name}` });
  }
  for (const at of capturePaths)
    requests.push({
      method: 'OPTIONS',
      path: at,
      headers: { origin: 'https://x.example', 'access-control-request-headers': 'x-evil, content-type' },
      label: `OPTIONS ${at}: preflight`,
    });

  // Query parameters capture reads on POST.
  for (const query of [
    '_=1&ver=x',
    '_=1e400',
    'compression=',
    'compression=%00',
    'project_id=abc',
    `project_id=${f.projectId}`,
    'project_id=99999999999999999999',
    'ip=%FF',
  ])
    post(`query ${query}`, valid, {}, query);

  // Headers capture reads.
  const headerCases: [string, Record<string, string>][] = [
    ['X-Forwarded-For garbage', { 'x-forwarded-for': 'not an ip, 1.2.3.4' }],
    ['X-Forwarded-For IPv6 with port', { 'x-forwarded-for': '[::1]:80' }],
    ['X-Forwarded-For 3 KB', { 'x-forwarded-for': '1'.repeat(3000) }],
    ['Host garbage', { host: 'ñ.example:99999' }],
    ['X-Forwarded-Proto garbage', { 'x-forwarded-proto': 'gopher' }],
    ['Origin garbage', { origin: 'null' }],
  ];
  for (const [name, headers] of headerCases) post(name, valid, headers);
  return requests;
}
