import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecretContext } from '../../../../functions/shared/secrets/cipher';
import { KmsSecretCipher } from '../../../../functions/shared/secrets/kms-cipher';
import { ensureLocalSecretsKey, LocalSecretCipher } from '../../../../functions/shared/secrets/local-cipher';

const context: SecretContext = { projectId: 7, pluginConfigId: 12, field: 'awsSecretAccessKey' };
const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

describe('the local secret cipher (AES-256-GCM, the encryption context as associated data)', () => {
  const cipher = new LocalSecretCipher(randomBytes(32));

  it('opens what it sealed, and the sealed text holds no trace of the plaintext', async () => {
    // Act
    const sealed = await cipher.seal(secret, context);
    // Assess
    expect(sealed).not.toContain(secret);
    expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain(secret);
    expect(await cipher.open(sealed, context)).toBe(secret);
  });

  it('seals the same secret differently each time (a fresh nonce)', async () => {
    expect(await cipher.seal(secret, context)).not.toBe(await cipher.seal(secret, context));
  });

  it.each([
    ['another project', { ...context, projectId: 8 }],
    ['another config', { ...context, pluginConfigId: 13 }],
    ['another field', { ...context, field: 'awsAccessKey' }],
  ])('refuses to open a secret under %s', async (_name, other) => {
    // Prepare
    const sealed = await cipher.seal(secret, context);
    // Act / Assess
    await expect(cipher.open(sealed, other)).rejects.toThrow();
  });

  it('refuses a secret sealed with another key, or altered', async () => {
    // Prepare
    const sealed = await cipher.seal(secret, context);
    const bytes = Buffer.from(sealed, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    // Act / Assess
    await expect(new LocalSecretCipher(randomBytes(32)).open(sealed, context)).rejects.toThrow();
    await expect(cipher.open(bytes.toString('base64'), context)).rejects.toThrow();
    await expect(cipher.open('c2hvcnQ=', context)).rejects.toThrow('Not a sealed secret');
  });

  it('generates its key file once, readable by its owner only, and never replaces it', async () => {
    // Prepare
    const file = join(mkdtempSync(join(tmpdir(), 'flock-secrets-')), 'secrets.key');
    // Act
    ensureLocalSecretsKey(file);
    const first = readFileSync(file, 'utf8');
    const sealed = await LocalSecretCipher.fromFile(file).seal(secret, context);
    ensureLocalSecretsKey(file);
    // Assess
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(await LocalSecretCipher.fromFile(file).open(sealed, context)).toBe(secret);
  });
});

describe('the KMS secret cipher', () => {
  const kms = mockClient(KMSClient);
  const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const expectedContext = { project_id: '7', plugin_config_id: '12', field: 'awsSecretAccessKey' };

  beforeEach(() => kms.reset());

  it('encrypts with the key and the encryption context of the config and field', async () => {
    // Prepare
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('ciphertext') });
    // Act
    const sealed = await new KmsSecretCipher(keyArn, new KMSClient({})).seal(secret, context);
    // Assess
    expect(sealed).toBe(Buffer.from('ciphertext').toString('base64'));
    const [call] = kms.commandCalls(EncryptCommand);
    expect(call?.args[0].input).toEqual({
      KeyId: keyArn,
      Plaintext: Buffer.from(secret),
      EncryptionContext: expectedContext,
    });
  });

  it('decrypts naming the key and the same encryption context', async () => {
    // Prepare
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from(secret) });
    // Act
    const opened = await new KmsSecretCipher(keyArn, new KMSClient({})).open(
      Buffer.from('ciphertext').toString('base64'),
      context,
    );
    // Assess
    expect(opened).toBe(secret);
    const [call] = kms.commandCalls(DecryptCommand);
    expect(call?.args[0].input).toEqual({
      KeyId: keyArn,
      CiphertextBlob: Buffer.from('ciphertext'),
      EncryptionContext: expectedContext,
    });
  });

  it('fails when KMS refuses the context (InvalidCiphertextException)', async () => {
    // Prepare
    kms
      .on(DecryptCommand)
      .rejects(Object.assign(new Error('invalid ciphertext'), { name: 'InvalidCiphertextException' }));
    // Act / Assess
    await expect(
      new KmsSecretCipher(keyArn, new KMSClient({})).open('Y2lwaGVydGV4dA==', { ...context, projectId: 8 }),
    ).rejects.toThrow('invalid ciphertext');
  });
});
