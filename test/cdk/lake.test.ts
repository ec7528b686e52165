import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { lakeColumns, lakePartitionColumns } from '../../functions/shared/lake/schema';
import { lakeDeadLetterQueue, lakeQueue } from '../../functions/shared/queue/definitions';
import { buildApp } from '../../lib/app';
import { athenaBytesScannedLimit, glueColumnsOfLake } from '../../lib/lake';
import { testApp } from '../helpers/cdk-app';

// GIVEN the Flock app as `cdk synth` builds it, bundling disabled
const { app } = testApp();
const { stateful, stateless } = buildApp(app);
// WHEN it is synthesized (cdk-nag runs too: an unacknowledged finding would throw here)
const template = Template.fromStack(stateful);

// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const logicalId = (bucket: { node: { defaultChild?: unknown } }): string =>
  stateful.getLogicalId(bucket.node.defaultChild as CfnBucket);

describe('the events lake in the stateful stack', () => {
  it('has a Glue table whose columns are the lake writer’s schema, with partition projection', () => {
    const tables = Object.values(template.findResources('AWS::Glue::Table')) as Json[];
    expect(tables).toHaveLength(1);
    const input = tables[0]!.Properties.TableInput as Json;
    // The writer's schema, read from its module, against the table's columns.
    expect(input.StorageDescriptor.Columns).toEqual(
      lakeColumns.map((column) => ({
        Name: column.name,
        Type: column.type === 'timestamp' ? 'timestamp' : 'string',
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
    for (const bucket of [stateful.lake.bucket, stateful.lake.resultsBucket]) {
      const id = logicalId(bucket);
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
        Ref: logicalId(stateful.lake.accessLogsBucket),
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
    const lake = (template.findResources('AWS::S3::Bucket')[logicalId(stateful.lake.bucket)] as Json)
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
            'Fn::Join': ['', ['s3://', { Ref: logicalId(stateful.lake.resultsBucket) }, '/']],
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
    // The consumer is not given the lake queue on AWS until the lake function is deployed there.
    expect(JSON.stringify(Template.fromStack(stateless).toJSON())).not.toContain('LAKE_QUEUE_URL');
  });
});
