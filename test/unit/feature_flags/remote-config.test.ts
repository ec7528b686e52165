import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/feature_flags/handler';
import { keys } from '../../../functions/shared/db/keys';
import { httpEvent, invoke } from '../../helpers/http-event';
import { bearer, ddb, givenCaller, inputsOf } from '../../helpers/private-api-mocks';

const oversizedKey = 'k'.repeat(3000);

/** DynamoDB's own refusal of a sort key over 1,024 bytes, for the one lookup such a key would cost. */
function refuseOversizedClaimRead(): void {
  ddb.on(GetCommand, { Key: keys.featureFlagKey(7, oversizedKey) }).rejects(
    Object.assign(new Error('Aggregated size of all range keys has exceeded the size limit of 1024 bytes'), {
      name: 'ValidationException',
    }),
  );
}

const remoteConfig = (idOrKey: string) =>
  invoke(
    handler,
    httpEvent('GET', `/api/projects/7/feature_flags/${idOrKey}/remote_config/`, { headers: bearer }),
  );

const claimReads = () =>
  inputsOf<GetCommandInput>(GetCommand).filter((input) => String(input.Key?.SK).startsWith('FLAGKEY#'));

describe('feature flag remote config', () => {
  beforeEach(() => {
    givenCaller();
    refuseOversizedClaimRead();
  });

  it('answers 404 for text no flag key can be, without looking it up', async () => {
    // Act
    const responses = await Promise.all(
      [oversizedKey, 'k'.repeat(401), encodeURIComponent('ñ'), 'a.b'].map(remoteConfig),
    );

    // Assess
    expect(responses.map((response) => response.statusCode)).toEqual([404, 404, 404, 404]);
    expect(claimReads()).toEqual([]);
  });

  it('looks up a key a flag can have', async () => {
    // Act
    const response = await remoteConfig('my-flag_2');

    // Assess
    expect(response.statusCode).toBe(404);
    expect(claimReads().map((input) => String(input.Key?.SK))).toEqual(['FLAGKEY#my-flag_2']);
  });
});
