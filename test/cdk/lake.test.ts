import { Match } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lakeColumns, lakePartitionColumns } from '../../functions/shared/lake/schema';
import { lakeDeadLetterQueue, lakeFlush, lakeQueue } from '../../functions/shared/queue/definitions';
import { athenaBytesScannedLimit, glueColumnsOfLake } from '../../lib/lake';
import { synthesizedApp } from '../helpers/cdk-app';

// GIVEN the Flock app as `cdk synth` builds it, bundling disabled
// WHEN it is synthesized (cdk-nag runs too: an unacknowledged finding would throw there), once for
// every CDK test file
const { stateful: template, stateless: lakeTemplate, ids } = synthesizedApp();

// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

describe('the events lake in the stateful stack', () => {
  it('has a Glue table whose columns are the lake writer’s schema, with partition projection', () => {
    const tables = Object.values(template.findResources('AWS::Glue::Table')) as Json[];
    expect(tables).toHaveLength(1);
    const input = tables[0]!.Properties.TableInput as Json;
    // The writer's schema, read from its module, against the table's columns.
    expect(input.StorageDescriptor.Columns).toEqual(
      lakeColumns.map((column) => ({
        Name: column.name,
        // A UUID is 16 bytes in Parquet (FIXED_LEN_BYTE_ARRAY): Hive's binary, not its string.
        Type: { timestamp: 'timestamp', uuid: 'binary', string: 'string' }[column.type],
      })),
    );
    expect(glueColumnsOfLake().map((column) => column.name)).toEqual(
      lakeColumns.map((column) => column.name),
    );
    expect(input.PartitionKeys).toEqual(
      lakePartitionColumns.map((column) => ({ Name: column.name, Type: column.type })),
    );
    expect(input.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe(
      'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
    );
    expect(input.Parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.project_id.type': 'integer',
      'projection.date.type': 'date',
      'projection.date.format': 'yyyy-MM-dd',
    });
    // The template points at the layout the writer uses.
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
      '/events/project_id=${project_id}/date=${date}/',
    );
    // No crawler: partitions come from projection only.
    expect(template.findResources('AWS::Glue::Crawler')).toEqual({});
  });

  it('encrypts the lake and results buckets, blocks public access, refuses plain HTTP, logs access, expires temporary files', () => {
    for (const id of [ids.stateful.lakeBucket, ids.stateful.lakeResultsBucket]) {
      const properties = (template.findResources('AWS::S3::Bucket')[id] as Json).Properties as Json;
      expect(
        properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault,
      ).toEqual({ SSEAlgorithm: 'AES256' });
      expect(properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(properties.LoggingConfiguration.DestinationBucketName).toEqual({
        Ref: ids.stateful.lakeAccessLogsBucket,
      });
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
    const lake = (template.findResources('AWS::S3::Bucket')[ids.stateful.lakeBucket] as Json)
      .Properties as Json;
    expect(lake.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: 'tmp/', ExpirationInDays: 1, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'merged/', ExpirationInDays: 7, Status: 'Enabled' }),
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
      ]),
    );
  });

  it('has an Athena workgroup with its own encrypted results bucket and a bytes-scanned limit, enforced', () => {
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: athenaBytesScannedLimit,
        ResultConfiguration: {
          EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
          OutputLocation: {
            'Fn::Join': ['', ['s3://', { Ref: ids.stateful.lakeResultsBucket }, '/']],
          },
        },
      },
    });
  });

  it('has the lake queue with its own DLQ after the defined receives', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: lakeQueue.visibilityTimeoutSeconds,
      MessageRetentionPeriod: lakeQueue.retentionDays * 86_400,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: lakeQueue.maxReceiveCount }),
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: lakeDeadLetterQueue.retentionDays * 86_400,
    });
  });
});

describe('the lake function in the stateless stack', () => {
  const lakeId = ids.functions.lake;
  const roleStatementsOf = (id: string): Json[] => {
    const roleId = (lakeTemplate.findResources('AWS::Lambda::Function')[id] as Json).Properties.Role[
      'Fn::GetAtt'
    ][0] as string;
    return Object.values(lakeTemplate.findResources('AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
  };
  const actionsOf = (statement: Json): string[] => [statement.Action as string | string[]].flat();

  it('runs every 5 minutes on arm64, with its timeout and no retries', () => {
    lakeTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Architectures: ['arm64'],
      Timeout: lakeFlush.functionTimeoutSeconds,
      Environment: {
        Variables: Match.objectLike({ LAKE_QUEUE_URL: Match.anyValue(), LAKE_BUCKET_NAME: Match.anyValue() }),
      },
    });
    lakeTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${lakeFlush.scheduleMinutes} minutes)`,
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [lakeId, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
    // The visibility timeout outlasts a run: a message comes back only once its writer is gone.
    expect(lakeQueue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(2 * lakeFlush.functionTimeoutSeconds);
  });

  it('may write lake files under events/ only, and drain the lake queue, nothing more of S3 or SQS', () => {
    const statements = roleStatementsOf(lakeId);
    const s3 = statements.filter((statement) => actionsOf(statement).some((a) => a.startsWith('s3:')));
    expect(s3.flatMap(actionsOf).sort()).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    for (const statement of s3) {
      const resource = JSON.stringify(statement.Resource);
      if (actionsOf(statement).includes('s3:ListBucket')) {
        expect(resource).not.toContain('/');
        expect(statement.Condition).toEqual({ StringLike: { 's3:prefix': ['events/*'] } });
      } else expect(resource).toContain('/events/*');
    }
    const sqs = statements.filter((statement) => actionsOf(statement).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap(actionsOf)).not.toContain('sqs:SendMessage');
    expect(sqs.flatMap(actionsOf)).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
    const queues = JSON.stringify(sqs.map((statement) => statement.Resource as unknown));
    expect(queues).toMatch(/LakeQueue/);
    expect(queues).not.toMatch(/IngestQueue|ExportsQueue|DeadLetter/);
  });

  it('gives the consumer the lake queue to send to, and nothing of the lake bucket', () => {
    const consumerId = ids.functions.consumer;
    const consumer = lakeTemplate.findResources('AWS::Lambda::Function')[consumerId] as Json;
    expect(consumer.Properties.Environment.Variables.LAKE_QUEUE_URL).toBeDefined();
    const statements = roleStatementsOf(consumerId);
    expect(statements.flatMap(actionsOf).filter((action) => action.startsWith('s3:Put'))).toEqual([]);
    expect(
      statements.some(
        (statement) =>
          actionsOf(statement).includes('sqs:SendMessage') &&
          JSON.stringify(statement.Resource).includes('Lake'),
      ),
    ).toBe(true);
  });

  it('alarms on the lake DLQ, naming its runbook step in the README (docs/lake.md has the detail)', () => {
    const alarm = lakeTemplate.findResources('AWS::CloudWatch::Alarm')[ids.lakeDeadLetterAlarm] as Json;
    expect(alarm.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(JSON.stringify(alarm.Properties.Dimensions)).toContain('LakeDeadLetterQueue');
    const step = /Runbook \(README\) step (\d+) "([^"]+)"/.exec(String(alarm.Properties.AlarmDescription));
    expect(readFileSync(join(__dirname, '../../README.md'), 'utf8')).toContain(
      `### ${step![1]}. ${step![2]}`,
    );
    expect(readFileSync(join(__dirname, '../../docs/lake.md'), 'utf8')).toContain(`### ${step![2]}`);
  });

  it('draws the lake on the dashboard: queue depth and age, run duration, events and files', () => {
    const body = JSON.stringify(lakeTemplate.findResources('AWS::CloudWatch::Dashboard'));
    const titles = [
      'Lake queue depth',
      'Lake queue age of oldest',
      'Lake writer run duration',
      'Lake: events',
    ];
    const metrics = ['LakeEventsWritten', 'LakeFiles', 'EventsToLake'];
    for (const expected of [...titles, ...metrics]) expect(body).toContain(expected);
  });
});
