import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/feature_flags/handler';
import { flagPatchSchema } from '../../../functions/feature_flags/schema';
import { httpEvent, invoke } from '../../helpers/http-event';
import { bearer, ddb, givenCaller } from '../../helpers/private-api-mocks';

describe('feature flag bodies', () => {
  beforeEach(() => givenCaller());

  it('refuses a name longer than 10,000 characters with 400, writing nothing', async () => {
    // Prepare: a 1 MB name would make the flag item larger than DynamoDB's 400 KB.
    const name = 'n'.repeat(10_001);

    // Act
    const response = await invoke(
      handler,
      httpEvent('POST', '/api/projects/7/feature_flags/', { headers: bearer, json: { key: 'k', name } }),
    );

    // Assess
    expect(response).toMatchObject({
      statusCode: 400,
      body: {
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'Ensure this field has no more than 10000 characters.',
        attr: 'name',
      },
    });
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('bounds the name of a PATCH the same way', () => {
    expect(flagPatchSchema.safeParse({ name: 'n'.repeat(10_000) }).success).toBe(true);
    expect(flagPatchSchema.safeParse({ name: 'n'.repeat(10_001) }).success).toBe(false);
  });
});
