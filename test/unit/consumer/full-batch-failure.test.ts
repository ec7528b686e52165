import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../functions/consumer/handler';
import { FullBatchFailureError } from '../../../functions/shared/queue/batch-failure';
import { captureRecord } from '../../helpers/capture-records';
import { lambdaContext } from '../../helpers/http-event';

const dynamodb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  dynamodb.reset();
});

afterAll(() => {
  dynamodb.restore();
});

const record = (messageId: string, distinctId: string) =>
  captureRecord(3, messageId, [{ event: 'signup', distinctId }]);
const down = () => Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' });

/**
 * The SQS event source reads a partial batch response with every item failed as a successful
 * invocation: Lambda neither backs off nor counts an error. A batch whose every record failed is
 * signalled by throwing, as Powertools' batch processor does (FullBatchFailureError).
 */
describe('consumer handler when every record fails', () => {
  it('throws FullBatchFailureError when DynamoDB refuses everything', async () => {
    // Prepare
    dynamodb.onAnyCommand().rejects(down());
    const event = {
      Records: [record('m-1', 'alice'), record('m-2', 'bob')],
    };
    // Act
    const outcome = handler(event, lambdaContext);
    // Assess
    await expect(outcome).rejects.toBeInstanceOf(FullBatchFailureError);
    await expect(outcome).rejects.toMatchObject({
      name: 'FullBatchFailureError',
      message: expect.stringContaining('All 2 records failed processing') as unknown,
    });
  });

  it('still answers a partial batch response when a record is dropped rather than failed', async () => {
    // Prepare: a record that can never be valid is dropped (acknowledged), not failed.
    dynamodb.onAnyCommand().rejects(down());
    const event = {
      Records: [record('m-1', 'alice'), { ...record('m-junk', 'x'), body: 'not json' }],
    };
    // Act
    const response = await handler(event, lambdaContext);
    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
  });

  it('answers an empty batch with no failures', async () => {
    expect(await handler({ Records: [] }, lambdaContext)).toEqual({ batchItemFailures: [] });
  });
});
