import type { SQSEvent } from 'aws-lambda';
import { handler } from '../../../functions/consumer/handler';
import { DynaliteTables } from '../../helpers/dynalite-tables';
import { lambdaContext } from '../../helpers/http-event';

let fake: DynaliteTables;

beforeEach(async () => {
  fake = await DynaliteTables.start(['test-main', 'test-events']);
});

afterEach(async () => {
  await fake.stop();
});

const body = (distinctId: string): string =>
  JSON.stringify({
    v: 1,
    project_id: 3,
    now: '2024-03-01T12:00:00.000Z',
    sent_at: null,
    ip: null,
    site_url: null,
    events: [
      {
        uuid: '018e0000-0000-7000-8000-00000000000' + distinctId.length,
        distinct_id: distinctId,
        data: { event: 'signup', properties: {} },
      },
    ],
  });

describe('consumer handler', () => {
  it('writes to the tables named by its environment and reports only the failed message', async () => {
    // Prepare
    fake.failWrite = (_attempt, description) =>
      description.includes('DID#3#bob')
        ? Object.assign(new Error('injected'), { name: 'InternalServerError' })
        : undefined;
    const event = {
      Records: [
        { messageId: 'm-alice', body: body('alice') },
        { messageId: 'm-bob', body: body('bob') },
        { messageId: 'm-garbage', body: 'garbage' },
      ],
    } as SQSEvent;
    // Act
    const response = await handler(event, lambdaContext);
    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-bob' }] });
    expect((await fake.items('test-main')).get('DID#3#alice DID')).toBeDefined();
    expect([...(await fake.items('test-events')).values()].filter((item) => item.SK === 'E')).toHaveLength(1);
  });
});
