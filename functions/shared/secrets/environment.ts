import { envNames, loadConfig, secretsKeyEnv } from '../config';
import type { SecretCipher } from './cipher';
import { KmsSecretCipher } from './kms-cipher';
import { LocalSecretCipher } from './local-cipher';

let cipher: SecretCipher | undefined;

/**
 * The cipher of this function's environment: the stack's KMS key (FLOCK_SECRETS_KEY_ARN), else the
 * local server's key file (FLOCK_LOCAL_SECRETS_KEY_FILE). Only the functions that seal or open secrets
 * are given either; asking elsewhere fails with the variable's name.
 */
export function secretCipher(env: NodeJS.ProcessEnv = process.env): SecretCipher {
  if (cipher) return cipher;
  const config = loadConfig(secretsKeyEnv, env);
  const keyArn = config[envNames.secretsKeyArn];
  const keyFile = config[envNames.localSecretsKeyFile];
  if (keyArn) cipher = new KmsSecretCipher(keyArn);
  else if (keyFile) cipher = LocalSecretCipher.fromFile(keyFile);
  else
    throw new Error(
      `Invalid Flock configuration: ${envNames.secretsKeyArn} is unset, so plugin config secrets can be neither sealed nor opened`,
    );
  return cipher;
}
