/** An item as its entity: the table's key attributes (PK, SK, GSI1PK, GSI1SK) removed. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, ...entity } = item;
  return entity as T;
}

/** Whether an error is DynamoDB's refusal of a write whose condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}
