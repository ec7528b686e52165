import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { lakeEventsPrefix, lakeTableName } from '../functions/shared/lake/layout';
import { glueType, lakeColumns, lakePartitionColumns } from '../functions/shared/lake/schema';

/** Where the lake keeps what is not (yet, or any more) part of the table. */
export const lakeTemporaryPrefixes = {
  /** Files being written or merged: never read; gone after a day if a writer left them. */
  temporary: 'tmp/',
  /** Files compaction replaced, kept for readers that listed them before: gone after a week. */
  merged: 'merged/',
} as const;

/** The most one Athena query of the workgroup may scan; a query over it is cancelled. */
export const athenaBytesScannedLimit = 10 * 1024 ** 3;

/** The first date partition projection offers (no Flock event is older). */
const firstLakeDate = '2020-01-01';

/** The Glue table's columns: the lake schema's, with the Hive types (a CDK test compares them). */
export function glueColumnsOfLake(): { name: string; type: string }[] {
  return lakeColumns.map((column) => ({ name: column.name, type: glueType(column.type) }));
}

/** The lake's Athena side: the workgroup, the Glue database of its table, and the results bucket. */
export interface LakeQueryResources {
  readonly workGroupName: string;
  readonly databaseName: string;
  readonly resultsBucket: IBucket;
}

/**
 * The events lake's data (docs/lake.md): the lake bucket, a Glue database and table over it with
 * partition projection (no crawler, no partitions to register), and an Athena workgroup with its own
 * results bucket, a per-query bytes-scanned limit and encrypted results. Every bucket is encrypted,
 * blocks public access, refuses plain HTTP and logs its accesses to the access-log bucket.
 */
export class FlockLake extends Construct {
  public readonly bucket: Bucket;
  public readonly resultsBucket: Bucket;
  public readonly accessLogsBucket: Bucket;
  public readonly database: CfnDatabase;
  public readonly table: CfnTable;
  public readonly workGroup: CfnWorkGroup;
  /** What the query function needs to run Athena queries over the lake. */
  public readonly queries: LakeQueryResources;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Log delivery granted by the access-log bucket's policy, not by an ACL (ACLs stay disabled).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const secure = {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    };
    this.accessLogsBucket = new Bucket(this, 'AccessLogs', {
      // S3 delivers server access logs only to buckets with S3-managed encryption (as `secure` is).
      ...secure,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.bucket = new Bucket(this, 'Bucket', {
      ...secure,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'lake/',
      lifecycleRules: [
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
        { prefix: lakeTemporaryPrefixes.temporary, expiration: Duration.days(1) },
        { prefix: lakeTemporaryPrefixes.merged, expiration: Duration.days(7) },
      ],
      // The lake holds every event: keep it if the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.resultsBucket = new Bucket(this, 'AthenaResults', {
      ...secure,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'athena-results/',
      // Query results are copies of lake rows: kept a week, then gone.
      lifecycleRules: [{ expiration: Duration.days(7) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const databaseName = `${Stack.of(this)
      .stackName.toLowerCase()
      .replace(/[^a-z0-9]/g, '_')}_lake`;
    this.database = new CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: databaseName, description: 'Flock: the events lake (docs/lake.md)' },
    });
    const location = `s3://${this.bucket.bucketName}/${lakeEventsPrefix}`;
    this.table = new CfnTable(this, 'EventsTable', {
      catalogId: Aws.ACCOUNT_ID,
      databaseName,
      tableInput: {
        name: lakeTableName,
        description: 'Flock: one row per stored event, partitioned by project and UTC date',
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: lakePartitionColumns.map((column) => ({ name: column.name, type: column.type })),
        parameters: {
          classification: 'parquet',
          'parquet.compression': 'ZSTD',
          // Partition projection: Athena computes the partitions from the query's own filters, so a
          // query names its project (the project_id range is every id, too many to list otherwise).
          'projection.enabled': 'true',
          'projection.project_id.type': 'integer',
          'projection.project_id.range': '1,2147483647',
          'projection.date.type': 'date',
          'projection.date.format': 'yyyy-MM-dd',
          'projection.date.range': `${firstLakeDate},NOW`,
          'projection.date.interval': '1',
          'projection.date.interval.unit': 'DAYS',
          'storage.location.template': `${location}project_id=\${project_id}/date=\${date}/`,
        },
        storageDescriptor: {
          columns: glueColumnsOfLake(),
          location,
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
        },
      },
    });
    this.table.addResourceDependency(this.database);

    this.workGroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: `${Stack.of(this).stackName}-lake`,
      description: 'Flock: queries over the events lake',
      recursiveDeleteOption: false,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: athenaBytesScannedLimit,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: `s3://${this.resultsBucket.bucketName}/`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
    this.queries = {
      workGroupName: this.workGroup.ref,
      databaseName,
      resultsBucket: this.resultsBucket,
    };
  }
}
