import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/users/handler';
import { keys } from '../../../functions/shared/db/keys';
import { meSchema } from '../../../functions/shared/schemas/user';
import { httpEvent, invoke } from '../../helpers/http-event';
import {
  aProject,
  bearer,
  caller,
  ddb,
  givenCaller,
  inputsOf,
  membership,
  organizationId,
  otherOrganizationId,
} from '../../helpers/private-api-mocks';

const organization = {
  id: organizationId,
  name: 'Acme',
  slug: 'acme',
  created_at: '2026-01-01T00:00:00.000Z',
};

describe('users handler', () => {
  beforeEach(() => {
    givenCaller({ projects: [aProject(7), aProject(9, otherOrganizationId)] });
    ddb
      .on(GetCommand, { Key: keys.organization(organizationId) })
      .resolves({ Item: { ...keys.organization(organizationId), ...organization } });
    ddb.on(QueryCommand, { IndexName: 'GSI1' }).resolves({ Items: [aProject(7)] });
    ddb
      .on(QueryCommand, { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)' })
      .resolves({ Items: [membership(15)] });
  });

  it.each(['/api/users/@me/', '/users/@me/', `/api/users/${caller.uuid}/`])(
    'describes the caller at %s in the published shape',
    async (path) => {
      const response = await invoke(handler, httpEvent('GET', path, { headers: bearer }));
      expect(response.statusCode).toBe(200);
      const me = meSchema.strict().parse(response.body);
      expect(me).toMatchObject({
        id: 3,
        email: 'ann@example.com',
        team: { id: 7, api_token: 'phc_token_7', effective_membership_level: 15 },
        organization: { id: organizationId, membership_level: 15, teams: [{ id: 7 }] },
        organizations: [{ id: organizationId, name: 'Acme', slug: 'acme', membership_level: 15 }],
      });
    },
  );

  it('answers 404 for another user', async () => {
    const response = await invoke(
      handler,
      httpEvent('GET', '/api/users/6a3c1c3e-2c6f-4c4f-9a43-6d9a7f1f0a09/', { headers: bearer }),
    );
    expect(response).toMatchObject({ statusCode: 404, body: { code: 'not_found' } });
  });

  it('switches the current project and its organization together', async () => {
    // Prepare
    givenCaller({ projects: [aProject(7), aProject(8)] });
    ddb
      .on(UpdateCommand, { Key: keys.user(caller.id) })
      .resolves({ Attributes: { ...caller, current_project_id: 8 } });

    // Act
    await invoke(
      handler,
      httpEvent('PATCH', '/api/users/@me/', {
        headers: bearer,
        json: { set_current_team: 8, first_name: 'Bo' },
      }),
    );

    // Assess
    const update = inputsOf<UpdateCommandInput>(UpdateCommand).find(
      (input) => input.Key?.PK === keys.user(caller.id).PK,
    );
    expect(update?.ExpressionAttributeNames).toEqual({
      '#f0': 'first_name',
      '#f1': 'current_project_id',
      '#f2': 'current_organization_id',
    });
    expect(update?.ExpressionAttributeValues).toEqual({ ':v0': 'Bo', ':v1': 8, ':v2': organizationId });
  });

  it('refuses a current project of another organization as if it did not exist', async () => {
    const response = await invoke(
      handler,
      httpEvent('PATCH', '/users/@me/', { headers: bearer, json: { set_current_team: 9 } }),
    );
    expect(response).toMatchObject({
      statusCode: 400,
      body: {
        type: 'validation_error',
        code: 'does_not_exist',
        detail: 'Object with id=9 does not exist.',
        attr: 'set_current_team',
      },
    });
  });
});
