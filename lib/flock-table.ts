import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { TableDefinition } from '../functions/shared/db/schema';

/**
 * A DynamoDB table built from its definition in `functions/shared/db/schema.ts` (the local emulator is
 * set up from the same definition): on-demand, string keys, every GSI projecting all attributes,
 * encrypted with the AWS-managed key, point-in-time recovery on, and kept when its stack is deleted.
 *
 * `Table` (AWS::DynamoDB::Table) rather than `TableV2` (AWS::DynamoDB::GlobalTable): switching later
 * would replace the table and lose its data.
 *
 * The construct id is given by the stack, not taken from the definition's local name: it fixes the
 * table's logical id, and a new logical id would make CloudFormation create a new, empty table (the
 * retained old one left orphaned). `test/cdk/stateful-stack.test.ts` pins it.
 */
export class FlockTable extends Table {
  public readonly definition: TableDefinition;

  constructor(scope: Construct, id: string, definition: TableDefinition) {
    super(scope, id, {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: definition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: definition.timeToLiveAttribute,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.definition = definition;
    for (const index of definition.globalSecondaryIndexes) {
      this.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
  }
}
