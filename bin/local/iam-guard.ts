import { appendFileSync } from 'node:fs';
import type { HttpGroup } from '../../functions/routes';
import { envNames } from '../../functions/shared/config';
import { environmentValue } from '../environment';
import { documentClient, lowLevelClient } from '../../functions/shared/db/client';
import type { FunctionAccess } from '../../lib/function-access';
import {
  cohortCalculationAccess,
  consumerAccess,
  exportsAccess,
  httpGroupAccess,
  lakeAccess,
  lakeCompactionAccess,
} from '../../lib/function-access';
import type { TableAction } from '../../lib/table-access';
import { anyKey } from '../../lib/table-access';
import type { HandlerWrapper } from './function-host';

/**
 * Loaded into every local function container before its handler: plays the function's IAM role on
 * its DynamoDB calls, as AWS would enforce the grants of lib/function-access.ts. A call whose action
 * the function is not granted, or whose partition key is outside the prefixes granted for that
 * action, fails with an AccessDeniedException naming both, so a missing grant shows up in `npm start` and in
 * the integration tests rather than after a deploy. Queries on an index are checked for the action
 * only: the stacks grant index reads without a key condition.
 *
 * With FLOCK_IAM_OBSERVE=<file>, every call's function, table, action and key prefix is also
 * appended to that file (one JSON line each), to see what a function really uses.
 */

type Input = Record<string, unknown>;

let functionName = 'unknown';
let access: FunctionAccess | undefined;

/** The container's function, known when the host wraps its handler (before any invocation). */
export const wrapHandler: HandlerWrapper = (handler, name) => {
  functionName = name;
  const group = name.replace(/^flock-/, '');
  access =
    group === 'consumer'
      ? consumerAccess
      : group === 'cohort_calculation'
        ? cohortCalculationAccess
        : group === 'exports'
          ? exportsAccess
          : group === 'lake'
            ? lakeAccess
            : group === 'lake_compaction'
              ? lakeCompactionAccess
              : httpGroupAccess[group as HttpGroup];
  return handler;
};

/** `PK` values the call addresses in the table itself (an index query addresses none). */
function partitionKeys(command: string, input: Input): { table: string; keys: string[] }[] {
  // A document client's key is a string, a low-level client's an attribute value (`{ S: … }`).
  const pk = (record: unknown): string => {
    const key = (record as Input | undefined)?.PK;
    return String(typeof key === 'object' && key !== null ? (key as { S?: unknown }).S : key);
  };
  switch (command) {
    case 'GetItemCommand':
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return [{ table: String(input.TableName), keys: [pk(input.Key)] }];
    case 'PutItemCommand':
      return [{ table: String(input.TableName), keys: [pk(input.Item)] }];
    case 'QueryCommand': {
      if (input.IndexName !== undefined) return [{ table: String(input.TableName), keys: [] }];
      const placeholder = /\bPK\s*=\s*(:\w+)/.exec(String(input.KeyConditionExpression))?.[1];
      const values = (input.ExpressionAttributeValues ?? {}) as Input;
      return [
        { table: String(input.TableName), keys: [String(placeholder ? values[placeholder] : undefined)] },
      ];
    }
    case 'BatchGetItemCommand':
      return Object.entries((input.RequestItems ?? {}) as Record<string, { Keys: Input[] }>).map(
        ([table, { Keys }]) => ({ table, keys: Keys.map(pk) }),
      );
    case 'BatchWriteItemCommand':
      return Object.entries((input.RequestItems ?? {}) as Record<string, Input[]>).map(
        ([table, requests]) => ({
          table,
          keys: requests.map((request) =>
            pk(
              (request.PutRequest as Input | undefined)?.Item ??
                (request.DeleteRequest as Input | undefined)?.Key,
            ),
          ),
        }),
      );
    default:
      return [{ table: String(input.TableName), keys: [] }];
  }
}

const prefixOf = (key: string): string => `${key.split('#')[0]}#`;

export class AccessDeniedException extends Error {
  override readonly name = 'AccessDeniedException';
}

/** Throws AccessDeniedException if the container's function may not send this call. */
export function checkAccess(command: string, input: Input): void {
  const action = `dynamodb:${command.replace(/Command$/, '')}`;
  const observe = process.env.FLOCK_IAM_OBSERVE;
  for (const { table, keys } of partitionKeys(command, input)) {
    const which = table === environmentValue(envNames.eventsTable) ? 'eventsTable' : 'singleTable';
    const prefixes = access?.[which]?.[action as TableAction];
    if (observe)
      for (const key of keys.length > 0 ? keys : [''])
        appendFileSync(
          observe,
          `${JSON.stringify({ functionName, which, action, prefix: key && prefixOf(key) })}\n`,
        );
    const denied = (why: string): AccessDeniedException =>
      new AccessDeniedException(
        `${functionName} is not authorized to perform: ${action} on the ${which} (${why}); see lib/function-access.ts`,
      );
    if (prefixes === undefined) throw denied('no such action granted');
    if (prefixes === anyKey) continue;
    const outside = keys.find((key) => !prefixes.some((prefix) => key.startsWith(prefix)));
    if (outside !== undefined)
      throw denied(`partition key ${prefixOf(outside)}… not granted for this action`);
  }
}

for (const client of [documentClient, lowLevelClient])
  client.middlewareStack.add(
    (next, context) => async (args) => {
      checkAccess(context.commandName ?? '', args.input as Input);
      return next(args);
    },
    { step: 'initialize', name: 'flockLocalIamGuard' },
  );
