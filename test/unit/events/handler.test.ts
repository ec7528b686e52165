import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/events/handler';
import { httpEvent, invoke } from '../../helpers/http-event';
import { bearer, ddb, givenCaller } from '../../helpers/private-api-mocks';

const list = (query: string) =>
  invoke(handler, httpEvent('GET', '/api/projects/7/events/', { headers: bearer, query }));

const cursorOf = (position: unknown): string =>
  encodeURIComponent(Buffer.from(JSON.stringify(position)).toString('base64url'));

describe('events handler: list query', () => {
  beforeEach(() => {
    givenCaller();
    ddb.on(QueryCommand).resolves({ Items: [] });
  });

  it('refuses after/before outside years 0–9999 with 400 naming the parameter, and reads nothing', async () => {
    // Prepare: Date holds these, but their ISO text (+275760-…) no longer sorts as times do.
    const queries = [
      'before=%2B275760-09-13T00:00:00.000Z',
      'before=-271821-04-20T00:00:00.000Z',
      'after=%2B010000-01-01T00:00:00.000Z',
    ];

    // Act
    const responses = await Promise.all(queries.map(list));

    // Assess
    expect(responses.map((response) => [response.statusCode, response.body])).toEqual([
      [
        400,
        {
          type: 'validation_error',
          code: 'invalid_input',
          detail: 'Enter a valid date/time.',
          attr: 'before',
        },
      ],
      [
        400,
        {
          type: 'validation_error',
          code: 'invalid_input',
          detail: 'Enter a valid date/time.',
          attr: 'before',
        },
      ],
      [
        400,
        {
          type: 'validation_error',
          code: 'invalid_input',
          detail: 'Enter a valid date/time.',
          attr: 'after',
        },
      ],
    ]);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('reads the bounds of years 0 and 9999', async () => {
    const response = await list('after=0000-01-01T00:00:00.000Z&before=9999-12-31T23:59:59.999Z');
    expect(response).toMatchObject({ statusCode: 200, body: { results: [] } });
  });

  it('refuses a cursor that does not hold a stored event’s time and uuid with 400, and reads nothing', async () => {
    // Prepare
    const uuid = '0190a000-0000-7000-8000-000000000001';
    const cursors = [
      ['', ''],
      ['x', 'y'],
      ['2024-01-01', uuid],
      ['+275760-09-13T00:00:00.000Z', uuid],
      ['2024-01-01T00:00:00.000Z', 'f'.repeat(3000)],
      ['2024-01-01T00:00:00.000Z', uuid.toUpperCase()],
    ].map(cursorOf);

    // Act
    const responses = await Promise.all(cursors.map((cursor) => list(`cursor=${cursor}`)));

    // Assess
    for (const response of responses)
      expect(response).toMatchObject({
        statusCode: 400,
        body: { type: 'validation_error', code: 'invalid_input', detail: 'Invalid cursor.', attr: 'cursor' },
      });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('reads from a cursor written by a previous page', async () => {
    const cursor = cursorOf(['2024-01-01T00:00:00.000Z', '0190a000-0000-7000-8000-000000000001']);
    expect((await list(`cursor=${cursor}`)).statusCode).toBe(200);
    expect(ddb.commandCalls(QueryCommand).length).toBeGreaterThan(0);
  });

  it('answers an empty list for a person_id that is not a uuid, without looking it up', async () => {
    // Act
    const response = await list(`person_id=${'p'.repeat(3000)}`);

    // Assess
    expect(response).toMatchObject({ statusCode: 200, body: { count: 0, next: null, results: [] } });
    const personReads = ddb
      .commandCalls(GetCommand)
      .filter((call) => String(call.args[0].input.Key?.PK).startsWith('PERSON#'));
    expect(personReads).toHaveLength(0);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });
});
