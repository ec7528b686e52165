import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { SecretCipher, SecretContext } from './cipher';
import { encryptionContext } from './cipher';

/**
 * Secrets sealed by AWS KMS with the stack's customer-managed key: `Encrypt` with the config's
 * encryption context (the plugin_configs API may only encrypt), `Decrypt` with the same context (only
 * the exports function may). The key is named on decrypt too, so a ciphertext of another key is refused.
 */
export class KmsSecretCipher implements SecretCipher {
  constructor(
    private readonly keyId: string,
    private readonly client: KMSClient = new KMSClient({}),
  ) {}

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const { CiphertextBlob } = await this.client.send(
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
    const { Plaintext } = await this.client.send(
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
