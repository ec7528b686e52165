import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../functions/flags/handler';
import { keys } from '../../../functions/shared/db/keys';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';
import { apiGatewayEvent, invoke } from '../capture/events';

const ddb = mockClient(DynamoDBDocumentClient);

describe('flags: metrics', () => {
  let emf: EmfCapture;
  beforeEach(() => {
    ddb.reset();
    emf = captureEmf();
  });
  afterEach(() => emf.restore());

  it('records one decide latency per evaluation, failed or not', async () => {
    // Prepare: a project without flags.
    ddb.on(GetCommand).resolves({});
    ddb
      .on(GetCommand, { Key: keys.projectToken('phc_metrics') })
      .resolves({ Item: { project_id: 9, organization: 'org', anonymize_ips: false } });
    ddb.on(QueryCommand).resolves({ Items: [] });
    const request = (token: string) =>
      apiGatewayEvent({
        path: '/flags/',
        query: { v: '2' },
        body: JSON.stringify({ token, distinct_id: 'u1' }),
      });

    // Act
    const ok = await invoke(handler, request('phc_metrics'));
    const unknown = await invoke(handler, request('phc_unknown'));

    // Assess
    expect([ok.statusCode, unknown.statusCode]).toEqual([200, 401]);
    expect(emf.values('DecideLatency')).toHaveLength(2);
  });
});
