import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SendMessageBatchCommandInput } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { keys } from '../../../functions/shared/db/keys';
import type { ProjectTokenItem } from '../../../functions/shared/db/projects';
import type { CaptureMessage } from '../../../functions/shared/queue/message';
import { captureMessageSchema } from '../../../functions/shared/queue/message';
import { envNames } from '../../../functions/shared/config';
import { environmentValue } from '../../../bin/environment';

/**
 * The AWS side of the capture handler's unit tests: SQS and DynamoDB mocked, a frozen clock, and
 * readers for the commands the handler sent.
 */

export const sqs = mockClient(SQSClient);
export const ddb = mockClient(DynamoDBDocumentClient);

export const tableName = environmentValue(envNames.singleTable)!;
export const queueUrl = environmentValue(envNames.ingestQueueUrl)!;

/** When the handler "receives" every request. */
export const receivedAt = new Date('2026-11-21T19:13:00.000Z');

/** Only `Date` is faked: the SDK mocks and middy keep their real timers. */
export function freezeTime(at: Date = receivedAt): void {
  jest.useFakeTimers({
    now: at,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}

/** Fresh mocks: every token unknown, the queue accepting every entry. */
export function resetMocks(): void {
  sqs.reset();
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
    Successful: (input.Entries ?? []).map((entry) => ({
      Id: entry.Id,
      MessageId: `message-${entry.Id}`,
      MD5OfMessageBody: '',
    })),
    Failed: [],
  }));
}

let tokens = 0;

/** A token no other test uses: the handler caches token lookups per container. */
export function uniqueToken(prefix = 'phc'): string {
  tokens += 1;
  return `${prefix}_test${tokens}_${Math.random().toString(36).slice(2, 10)}`;
}

export const projectItem = (overrides: Partial<ProjectTokenItem> = {}): ProjectTokenItem => ({
  project_id: 7,
  organization: 'org-1',
  anonymize_ips: false,
  ...overrides,
});

export const tokenLookup = (token: string): GetCommandInput => ({
  TableName: tableName,
  Key: keys.projectToken(token),
});

/** Makes `token` a project token. */
export function givenProjectToken(token: string, item: ProjectTokenItem = projectItem()): void {
  ddb.on(GetCommand, tokenLookup(token)).resolves({ Item: { ...keys.projectToken(token), ...item } });
}

/** The GetItem inputs sent, in order. */
export const getItemInputs = (): GetCommandInput[] =>
  ddb.commandCalls(GetCommand).map((call) => call.args[0].input);

/** The SendMessageBatch inputs sent, in order. */
export const sentBatches = (): SendMessageBatchCommandInput[] =>
  sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);

/** Every queued message body, parsed and checked against the contract the consumer reads. */
export function queuedMessages(): CaptureMessage[] {
  return sentBatches().flatMap((batch) =>
    (batch.Entries ?? []).map((entry) => captureMessageSchema.parse(JSON.parse(entry.MessageBody ?? ''))),
  );
}

/** The events of the only queued message, after checking that exactly one was sent in one call. */
export function onlyMessage(): CaptureMessage {
  expect(sentBatches()).toEqual([
    { QueueUrl: queueUrl, Entries: [{ Id: '0', MessageBody: expect.any(String) }] },
  ]);
  return queuedMessages()[0]!;
}

export const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
