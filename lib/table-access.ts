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

/** An action's partition keys not limited by the table's key prefixes (the events table's keys). */
export const anyKey = 'any key';

/**
 * Prefixes (`TOKEN#`…, functions/shared/db/keys.ts) of the partition keys an action may address: IAM's
 * `dynamodb:LeadingKeys` on the table. Index queries are not restricted by it: a Query granted on no
 * prefix (`[]`) may read the table's indexes only.
 */
export type KeyPrefixes = readonly string[] | typeof anyKey;

/**
 * A function's grant on one table: exactly the actions it calls, each on exactly the partition key
 * prefixes it addresses (one IAM statement per distinct prefix list), not every action on every prefix.
 */
export type TableGrant = Readonly<Partial<Record<TableAction, KeyPrefixes>>>;

/** The actions of a grant, each with its prefixes. */
export function grantedActions(grant: TableGrant): [TableAction, KeyPrefixes][] {
  return Object.entries(grant).filter((entry): entry is [TableAction, KeyPrefixes] => entry[1] !== undefined);
}
