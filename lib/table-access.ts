// The vocabulary of a function's table grants, free of CDK imports so that the local server's IAM
// guard (bin/local/iam-guard.ts) can load it into every function container cheaply.

/** The DynamoDB actions Flock's functions call. Scan, transactions and ConditionCheckItem are never used. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:BatchWriteItem';

/** A function's grant on one table: exactly the actions it calls, and the partition keys it may address. */
export interface TableGrant {
  readonly actions: readonly TableAction[];
  /**
   * Prefixes (`TOKEN#`…, functions/shared/db/keys.ts) of the partition keys it may address: IAM's
   * `dynamodb:LeadingKeys` on the table. Index queries are not restricted by it. Absent: any key.
   */
  readonly leadingKeys?: readonly string[];
}
