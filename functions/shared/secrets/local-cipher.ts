import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { SecretCipher, SecretContext } from './cipher';
import { encryptionContext } from './cipher';

/**
 * The local server's stand-in for KMS: AES-256-GCM with a key generated once into the data directory
 * (`secrets.key`), the encryption context as additional authenticated data, so a sealed value opens
 * only under the context it was sealed with, as with KMS. No network. Sealed text is base64 of
 * nonce (12 bytes) ‖ tag (16 bytes) ‖ ciphertext.
 */
const algorithm = 'aes-256-gcm';
const nonceBytes = 12;
const tagBytes = 16;
const keyBytes = 32;

const additionalData = (context: SecretContext): Buffer =>
  Buffer.from(JSON.stringify(encryptionContext(context)), 'utf8');

export class LocalSecretCipher implements SecretCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== keyBytes)
      throw new Error(`A local secrets key has ${keyBytes} bytes, not ${key.length}`);
  }

  /** The cipher of the key file `ensureLocalSecretsKey` wrote. */
  static fromFile(path: string): LocalSecretCipher {
    return new LocalSecretCipher(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'));
  }

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const nonce = randomBytes(nonceBytes);
    const cipher = createCipheriv(algorithm, this.key, nonce).setAAD(additionalData(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    const bytes = Buffer.from(sealed, 'base64');
    if (bytes.length < nonceBytes + tagBytes) throw new Error('Not a sealed secret');
    const decipher = createDecipheriv(algorithm, this.key, bytes.subarray(0, nonceBytes))
      .setAAD(additionalData(context))
      .setAuthTag(bytes.subarray(nonceBytes, nonceBytes + tagBytes));
    // final() throws when the tag does not match: another key, another context, or altered bytes.
    const plaintext = Buffer.concat([
      decipher.update(bytes.subarray(nonceBytes + tagBytes)),
      decipher.final(),
    ]);
    return plaintext.toString('utf8');
  }
}

/** Writes a new random key to `path` unless one is there (never replaced: it would orphan every secret). */
export function ensureLocalSecretsKey(path: string): void {
  try {
    writeFileSync(path, `${randomBytes(keyBytes).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
