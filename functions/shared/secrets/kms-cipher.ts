import type { KMSClient } from '@aws-sdk/client-kms';
import type { SecretCipher, SecretContext } from './cipher';
import { encryptionContext } from './cipher';

/**
 * Secrets sealed by AWS KMS with the stack's customer-managed key: `Encrypt` with the config's
 * encryption context (the plugin_configs API may only encrypt), `Decrypt` with the same context (only
 * the exports function may). The key is named on decrypt too, so a ciphertext of another key is refused.
 *
 * The KMS SDK is loaded on the first seal or open, not at cold start: most invocations of the
 * functions that may use it (listing or reading configs, exporting with a config that keeps no
 * secret) never do, and loading it would cost every cold start.
 */
export class KmsSecretCipher implements SecretCipher {
  constructor(
    private readonly keyId: string,
    private client?: KMSClient,
  ) {}

  private async kmsClient(): Promise<KMSClient> {
    if (!this.client) {
      const { KMSClient } = await import('@aws-sdk/client-kms');
      this.client ??= new KMSClient({});
    }
    return this.client;
  }

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const { EncryptCommand } = await import('@aws-sdk/client-kms');
    const client = await this.kmsClient();
    const { CiphertextBlob } = await client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(plaintext, 'utf8'),
        EncryptionContext: encryptionContext(context),
      }),
    );
    if (!CiphertextBlob) throw new Error('KMS returned no ciphertext');
    return Buffer.from(CiphertextBlob).toString('base64');
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    const { DecryptCommand } = await import('@aws-sdk/client-kms');
    const client = await this.kmsClient();
    const { Plaintext } = await client.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(sealed, 'base64'),
        EncryptionContext: encryptionContext(context),
      }),
    );
    if (!Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(Plaintext).toString('utf8');
  }
}
