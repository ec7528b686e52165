import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { SecretCipher, SecretContext } from './cipher';
import { encryptionContext } from './cipher';

/**
 * Secrets sealed by AWS KMS with the stack's customer-managed key: `Encrypt` with the config's
 * encryption context (the plugin_configs API may only encrypt), `Decrypt` with the same context (only
 * the exports function may). The key is named on decrypt too, so a ciphertext of another key is refused.
 *
 * The client is built on the first seal or open: most invocations of the functions that may use it
 * (listing or reading configs, exporting with a config that keeps no secret) never do. Its package is
 * imported statically: an `import()` kept all of its commands in the bundle and made esbuild wrap it,
 * with every SDK module it shares with the DynamoDB client, in functions evaluated on first use, which
 * V8 parsed twice at every cold start; imported by name, the bundle holds only the two commands and
 * the load is cheaper than the lazy import made it.
 */
export class KmsSecretCipher implements SecretCipher {
  constructor(
    private readonly keyId: string,
    private client?: KMSClient,
  ) {}

  private kmsClient(): KMSClient {
    this.client ??= new KMSClient({});
    return this.client;
  }

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const client = this.kmsClient();
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
    const client = this.kmsClient();
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
