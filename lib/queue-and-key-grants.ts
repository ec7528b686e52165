import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';

/**
 * What a function may do with a queue: sending, or receiving and deleting what it received (the lake
 * function drains its queue itself; an event source's consuming is granted by the event source).
 */
export type QueueAccess = 'send' | 'drain';

const queueActions: Readonly<Record<QueueAccess, readonly string[]>> = {
  // SendMessageBatch is authorized by sqs:SendMessage, DeleteMessageBatch by sqs:DeleteMessage.
  send: ['sqs:SendMessage'],
  drain: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
};

/**
 * Grants `grantee` exactly `access` on `queue`. Not `queue.grantSendMessages()`, which adds
 * GetQueueAttributes and GetQueueUrl: the functions know the URL from their environment.
 */
export function grantQueue(queue: IQueue, grantee: IGrantable, access: QueueAccess): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: [...queueActions[access]],
    resourceArns: [queue.queueArn],
  });
}

/**
 * What a function may do with the plugin secrets key: `seal` (the plugin_configs API, which never
 * needs to read a secret back) or `open` (the exports function, which uploads with them).
 */
export type SecretsKeyAccess = 'seal' | 'open';

const secretsKeyActions: Readonly<Record<SecretsKeyAccess, readonly string[]>> = {
  seal: ['kms:Encrypt'],
  open: ['kms:Decrypt'],
};

/** The encryption context every sealed secret carries (functions/shared/secrets/cipher.ts). */
const secretsContextKeys = ['project_id', 'plugin_config_id', 'field'] as const;

/**
 * Grants `grantee` exactly `access` on the plugin secrets key, only with the encryption context that
 * binds a secret to its config: the key serves nothing else. Not `key.grantEncrypt()`, which takes no
 * condition.
 */
export function grantSecretsKey(key: IKey, grantee: IGrantable, access: SecretsKeyAccess): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: [...secretsKeyActions[access]],
    resourceArns: [key.keyArn],
    conditions: {
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...secretsContextKeys] },
      Null: Object.fromEntries(secretsContextKeys.map((name) => [`kms:EncryptionContext:${name}`, 'false'])),
    },
  });
}
