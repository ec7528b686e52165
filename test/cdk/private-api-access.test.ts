import type { HttpGroup } from '../../functions/routes';
import { eventsTable, singleTable } from '../../functions/shared/db/schema';
import { synthesizedApp } from '../helpers/cdk-app';

// GIVEN the Flock app, synthesized without bundling
const { stateless: template, ids } = synthesizedApp();

// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const { singleTable: singleTableId, eventsTable: eventsTableId } = ids.stateful;

/** The data-plane actions (DynamoDB, SQS) a group's function may perform on a resource. */
function actionsOn(group: HttpGroup, logicalId: string): string[] {
  const functionId = ids.functions[group];
  const roleId =
    template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[])
    .filter((statement) => JSON.stringify(statement.Resource).includes(logicalId))
    .flatMap((statement) => [statement.Action as string | string[]].flat())
    .filter((action, index, all) => all.indexOf(action) === index)
    .sort();
}

const envOf = (group: HttpGroup): Record<string, string> => {
  const functionId = ids.functions[group];
  return template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Environment
    .Variables as Record<string, string>;
};

describe('private API functions: least privilege', () => {
  it('lets projects and personal_api_keys create, update and delete single items, never in batches', () => {
    // THEN
    for (const group of ['projects', 'personal_api_keys'] as const) {
      expect(actionsOn(group, singleTableId)).toEqual(
        [
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
        ].sort(),
      );
    }
  });

  it('lets users and event_definitions read the single table and only update it', () => {
    // THEN
    expect(actionsOn('users', singleTableId)).toEqual(
      ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'].sort(),
    );
    expect(actionsOn('event_definitions', singleTableId)).toEqual(
      ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'].sort(),
    );
  });

  it('keeps every private API function but events away from the events table', () => {
    // THEN
    for (const group of ['projects', 'users', 'personal_api_keys', 'event_definitions', 'schema'] as const) {
      expect({ group, actions: actionsOn(group, eventsTableId) }).toEqual({ group, actions: [] });
      expect(envOf(group)[eventsTable.envVar]).toBeUndefined();
    }
  });

  it('gives the OpenAPI document function no table at all', () => {
    // THEN
    expect(actionsOn('schema', singleTableId)).toEqual([]);
    expect(envOf('schema')[singleTable.envVar]).toBeUndefined();
  });
});
