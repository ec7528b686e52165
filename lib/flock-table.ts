import { RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { TableDefinition } from '../functions/shared/db/schema';
import type { KeyPrefixes, TableAction, TableGrant } from './table-access';
import { anyKey, grantedActions } from './table-access';

/** A Flock table as the stateless stack sees it: its definition, and grants scoped to key prefixes. */
export interface IFlockTable extends ITable {
  readonly definition: TableDefinition;
  /**
   * Grants `grantee` exactly `grant`: each action on the table limited to its own partition key
   * prefixes (`dynamodb:LeadingKeys`; actions with the same prefixes share a statement), and Query on
   * each named index (an `index/*` wildcard never), which the key prefixes do not limit.
   */
  grantScoped(grantee: IGrantable, grant: TableGrant): Grant;
}

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
export class FlockTable extends Table implements IFlockTable {
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

  public grantScoped(grantee: IGrantable, grant: TableGrant): Grant {
    const byPrefixes = new Map<string, { actions: TableAction[]; prefixes: KeyPrefixes }>();
    for (const [action, prefixes] of grantedActions(grant)) {
      // A Query on no prefix reads the indexes only: no statement on the table itself.
      if (prefixes !== anyKey && prefixes.length === 0) continue;
      const id = JSON.stringify(prefixes);
      const statement = byPrefixes.get(id) ?? { actions: [], prefixes };
      statement.actions.push(action);
      byPrefixes.set(id, statement);
    }
    const grants = [...byPrefixes.values()].map(({ actions, prefixes }) =>
      Grant.addToPrincipal({
        grantee,
        actions,
        resourceArns: [this.tableArn],
        ...(prefixes === anyKey
          ? {}
          : {
              conditions: {
                'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((p) => `${p}*`) },
              },
            }),
      }),
    );
    const indexes = this.definition.globalSecondaryIndexes;
    if (grant['dynamodb:Query'] !== undefined && indexes.length > 0)
      grants.push(
        Grant.addToPrincipal({
          grantee,
          actions: ['dynamodb:Query'],
          resourceArns: indexes.map((index) => `${this.tableArn}/index/${index.indexName}`),
        }),
      );
    return grants.reduce((all, next) => all.combine(next), Grant.drop(grantee, 'a grant of no action'));
  }
}
