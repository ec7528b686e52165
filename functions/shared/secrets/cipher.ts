/**
 * Secret settings of plugin configs (a plugin's `secret: true` config fields, such as the S3 Export's
 * secret access key) are stored sealed: encrypted with a key only some functions may use
 * (lib/function-access.ts), bound to the config they belong to.
 */

/** What a sealed secret is bound to: opening it under any other context fails. */
export interface SecretContext {
  readonly projectId: number;
  readonly pluginConfigId: number;
  /** The config field, so a sealed value cannot be moved to another field of the config either. */
  readonly field: string;
}

export interface SecretCipher {
  /** `plaintext` encrypted under `context`, as text (base64) to store. */
  seal(plaintext: string, context: SecretContext): Promise<string>;
  /** The plaintext of `sealed`; throws if it was sealed under another context or key, or altered. */
  open(sealed: string, context: SecretContext): Promise<string>;
}

/** The context as KMS's EncryptionContext (logged by CloudTrail with every use of the key). */
export function encryptionContext(context: SecretContext): Record<string, string> {
  return {
    project_id: String(context.projectId),
    plugin_config_id: String(context.pluginConfigId),
    field: context.field,
  };
}

/** KMS encrypts at most 4,096 bytes directly; a secret setting (a key, a token) is far smaller. */
export const maxSecretBytes = 4096;
