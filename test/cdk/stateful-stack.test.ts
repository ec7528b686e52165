import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { TableDefinition } from '../../functions/shared/db/schema';
import { eventsTable, singleTable, tables } from '../../functions/shared/db/schema';
import {
  deadLetterQueue,
  exportsDeadLetterQueue,
  exportsQueue,
  ingestQueue,
  messageLimits,
} from '../../functions/shared/queue/definitions';
import { synthesizedApp, testApp } from '../helpers/cdk-app';
import { FlockTable } from '../../lib/flock-table';

// GIVEN the Flock app as `cdk synth` builds it, with bundling disabled so synth stays fast
// WHEN it is synthesized (cdk-nag runs too: an unacknowledged finding would throw there), once for
// every CDK test file
const { stateful: template, ids } = synthesizedApp();

const tableLogicalId = (definition: TableDefinition): string =>
  definition === eventsTable ? ids.stateful.eventsTable : ids.stateful.singleTable;
const {
  ingestQueue: ingestQueueId,
  deadLetterQueue: deadLetterQueueId,
  exportsQueue: exportsQueueId,
  exportsDeadLetterQueue: exportsDeadLetterQueueId,
} = ids.stateful;
const allQueueIds = [ingestQueueId, deadLetterQueueId, exportsQueueId, exportsDeadLetterQueueId];
const days = (n: number): number => n * 24 * 60 * 60;

describe('FlockStatefulStack', () => {
  describe('tables', () => {
    it('creates one AWS::DynamoDB::Table per definition in schema.ts and no global table', () => {
      // THEN
      template.resourceCountIs('AWS::DynamoDB::Table', tables.length);
      template.resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
    });

    it.each(tables.map((t) => [t.name, t] as const))(
      'gives %s the string key schema of its definition',
      (_name, definition) => {
        // THEN
        const table = template.findResources('AWS::DynamoDB::Table')[tableLogicalId(definition)];
        expect(table?.Properties.KeySchema).toEqual([
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ]);
        const keyNames = [
          definition.partitionKey,
          definition.sortKey,
          ...definition.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
        ];
        expect(table?.Properties.AttributeDefinitions).toEqual(
          keyNames.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        );
      },
    );

    it('creates the GSIs of each definition, projecting all attributes', () => {
      // THEN
      for (const definition of tables) {
        const table = template.findResources('AWS::DynamoDB::Table')[tableLogicalId(definition)];
        const expected = definition.globalSecondaryIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }));
        expect(table?.Properties.GlobalSecondaryIndexes ?? []).toEqual(expected);
      }
      expect(singleTable.globalSecondaryIndexes.length).toBeGreaterThan(0);
    });

    it('turns on TTL where the definition names an expiry attribute', () => {
      // THEN
      for (const definition of tables) {
        const table = template.findResources('AWS::DynamoDB::Table')[tableLogicalId(definition)];
        expect(table?.Properties.TimeToLiveSpecification).toEqual(
          definition.timeToLiveAttribute
            ? { AttributeName: definition.timeToLiveAttribute, Enabled: true }
            : undefined,
        );
      }
      expect(singleTable.timeToLiveAttribute).toBe('expires');
    });

    it('bills every table on demand, encrypts it, keeps point-in-time recovery and retains it on delete', () => {
      // THEN
      const all = template.findResources('AWS::DynamoDB::Table');
      expect(Object.keys(all)).toHaveLength(tables.length);
      for (const table of Object.values(all)) {
        expect(table).toMatchObject({
          DeletionPolicy: 'Retain',
          UpdateReplacePolicy: 'Retain',
          Properties: {
            BillingMode: 'PAY_PER_REQUEST',
            SSESpecification: { SSEEnabled: true },
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          },
        });
      }
    });
  });

  describe('queues', () => {
    it('creates exactly the ingest, exports and lake queues and their dead-letter queues', () => {
      // THEN
      template.resourceCountIs('AWS::SQS::Queue', 6);
    });

    it(`moves an export message to the exports DLQ after ${exportsQueue.maxReceiveCount} receives`, () => {
      // THEN
      const queues = template.findResources('AWS::SQS::Queue');
      expect(queues[exportsQueueId]?.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [exportsDeadLetterQueueId, 'Arn'] },
        maxReceiveCount: exportsQueue.maxReceiveCount,
      });
      expect(queues[exportsQueueId]?.Properties).toMatchObject({
        VisibilityTimeout: exportsQueue.visibilityTimeoutSeconds,
        MessageRetentionPeriod: days(exportsQueue.retentionDays),
      });
      expect(queues[exportsDeadLetterQueueId]?.Properties).toMatchObject({
        MessageRetentionPeriod: days(exportsDeadLetterQueue.retentionDays),
      });
    });

    it(`moves a message to the DLQ after ${ingestQueue.maxReceiveCount} receives`, () => {
      // THEN
      template.hasResource('AWS::SQS::Queue', {
        Properties: {
          RedrivePolicy: {
            deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueueId, 'Arn'] },
            maxReceiveCount: 5,
          },
        },
      });
      expect(ingestQueue.maxReceiveCount).toBe(5);
    });

    it('takes visibility timeout and retention from definitions.ts', () => {
      // THEN
      const queues = template.findResources('AWS::SQS::Queue');
      expect(queues[ingestQueueId]?.Properties).toMatchObject({
        VisibilityTimeout: ingestQueue.visibilityTimeoutSeconds,
        MessageRetentionPeriod: days(ingestQueue.retentionDays),
      });
      expect(queues[deadLetterQueueId]?.Properties).toMatchObject({
        MessageRetentionPeriod: days(deadLetterQueue.retentionDays),
      });
      expect(queues[deadLetterQueueId]?.Properties.RedrivePolicy).toBeUndefined();
    });

    it('pins every queue to the message size capture and the consumer pack for (SQS defaults have changed before)', () => {
      const queues = template.findResources('AWS::SQS::Queue');
      for (const id of allQueueIds)
        expect(queues[id]?.Properties.MaximumMessageSize).toBe(messageLimits.maxMessageBytes);
    });

    it('encrypts every queue with SQS-managed keys and keeps them on delete', () => {
      // THEN
      for (const queue of Object.values(template.findResources('AWS::SQS::Queue'))) {
        expect(queue).toMatchObject({
          DeletionPolicy: 'Retain',
          Properties: { SqsManagedSseEnabled: true },
        });
      }
    });

    it('denies any request to any queue over plain HTTP', () => {
      // THEN
      for (const queueId of allQueueIds) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: queueId }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Effect: 'Deny',
                Action: 'sqs:*',
                Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              }),
            ]),
          },
        });
      }
    });
  });

  describe('plugin secrets key', () => {
    it('is one customer-managed key that rotates, and is kept when the stack goes', () => {
      // THEN
      template.resourceCountIs('AWS::KMS::Key', 1);
      template.hasResource('AWS::KMS::Key', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { EnableKeyRotation: true },
      });
    });

    it('outputs its ARN for the plugin config upgrade', () => {
      // THEN
      template.hasOutput('PluginSecretsKeyArn', {
        Value: { 'Fn::GetAtt': ['PluginSecretsKey582E10E8', 'Arn'] },
      });
    });
  });

  it('outputs the table names and queue URLs under the ids the ops CLI reads', () => {
    // THEN
    template.hasOutput('EventsTableName', { Value: { Ref: tableLogicalId(eventsTable) } });
    template.hasOutput('SingleTableName', { Value: { Ref: tableLogicalId(singleTable) } });
    template.hasOutput('IngestQueueUrl', { Value: { Ref: ingestQueueId } });
    template.hasOutput('DeadLetterQueueUrl', { Value: { Ref: deadLetterQueueId } });
    template.hasOutput('ExportsQueueUrl', { Value: { Ref: exportsQueueId } });
    template.hasOutput('ExportsDeadLetterQueueUrl', { Value: { Ref: exportsDeadLetterQueueId } });
  });

  describe('logical ids of data-holding resources', () => {
    // A changed logical id makes CloudFormation create a new, empty resource; a retained old one is left
    // orphaned with its data. These values are the ones deployed stacks already hold: never edit them.
    const pinned: Record<string, string> = {
      FlockEventsDFB217CB: 'AWS::DynamoDB::Table',
      FlockMainC1300B83: 'AWS::DynamoDB::Table',
      IngestQueue95F6DB49: 'AWS::SQS::Queue',
      IngestDeadLetterQueueE8016E9B: 'AWS::SQS::Queue',
      ExportsQueue3BC6B04F: 'AWS::SQS::Queue',
      ExportsDeadLetterQueue4BF7CD93: 'AWS::SQS::Queue',
      LakeQueueCE525D94: 'AWS::SQS::Queue',
      LakeDeadLetterQueueFB77318D: 'AWS::SQS::Queue',
      EventsLakeBucketB6519137: 'AWS::S3::Bucket',
      EventsLakeAthenaResultsE866A146: 'AWS::S3::Bucket',
      EventsLakeAccessLogsB0EF5F49: 'AWS::S3::Bucket',
      PluginSecretsKey582E10E8: 'AWS::KMS::Key',
    };
    const statefulTypes = new Set([
      'AWS::DynamoDB::Table',
      'AWS::SQS::Queue',
      'AWS::S3::Bucket',
      'AWS::KMS::Key',
    ]);

    it('keeps every table, queue, bucket and key under its pinned logical id', () => {
      // THEN
      const resources = template.toJSON().Resources as Record<string, { Type: string }>;
      const stateful = Object.fromEntries(
        Object.entries(resources)
          .filter(([, resource]) => statefulTypes.has(resource.Type))
          .map(([id, resource]) => [id, resource.Type]),
      );
      expect(stateful).toEqual(pinned);
      expect(tableLogicalId(eventsTable)).toBe('FlockEventsDFB217CB');
      expect(tableLogicalId(singleTable)).toBe('FlockMainC1300B83');
      expect(ingestQueueId).toBe('IngestQueue95F6DB49');
      expect(deadLetterQueueId).toBe('IngestDeadLetterQueueE8016E9B');
      expect(exportsQueueId).toBe('ExportsQueue3BC6B04F');
      expect(exportsDeadLetterQueueId).toBe('ExportsDeadLetterQueue4BF7CD93');
    });

    it('does not derive a table logical id from the local table name', () => {
      // GIVEN a table definition whose local name changed
      const stack = new Stack(testApp().app, 'Renamed');
      // WHEN it is built under the stack's fixed construct id
      const table = new FlockTable(stack, 'FlockEvents', { ...eventsTable, name: 'RenamedEvents' });
      // THEN the logical id is the one the deployed table has
      expect(stack.getLogicalId(table.node.defaultChild as CfnTable)).toBe('FlockEventsDFB217CB');
    });
  });

  it('holds no compute: functions, APIs and alarms live in the stateless stack', () => {
    // THEN
    template.resourceCountIs('AWS::Lambda::Function', 0);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 0);
  });
});
