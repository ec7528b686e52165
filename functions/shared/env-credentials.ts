/**
 * The AWS credentials of a deployed function: its execution role's, which Lambda puts in the
 * environment of every function (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`),
 * where the AWS SDK's default chain (`@aws-sdk/credential-provider-node`) looks first.
 *
 * The functions' bundles use this module in place of that chain (an esbuild alias,
 * lib/credential-chain.ts), the deployed ones and the local server's:
 * the chain's other providers (SSO, shared INI files, credential processes, web identity tokens, the
 * container and instance metadata services) and the SSO, STS and sign-in clients they call are never
 * reached on Lambda, yet made up a fifth to a quarter of an HTTP function's bundle, compiled at every
 * cold start. The TypeScript sources (the tests, the tools) keep the SDK's own chain.
 *
 * Reads the same variables as the SDK's `fromEnv` (`@aws-sdk/credential-provider-env`); the clients
 * cache the credentials and ask again when they come near their expiration, as with the chain.
 */

export interface EnvCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
  readonly credentialScope?: string;
  readonly accountId?: string;
}

/** The environment's credentials; an error naming the variables when they are missing. */
export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): EnvCredentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new Error(
      'No AWS credentials in the environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are unset',
    );
  const sessionToken = env.AWS_SESSION_TOKEN;
  const expiration = env.AWS_CREDENTIAL_EXPIRATION;
  const credentialScope = env.AWS_CREDENTIAL_SCOPE;
  const accountId = env.AWS_ACCOUNT_ID;
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(expiration ? { expiration: new Date(expiration) } : {}),
    ...(credentialScope ? { credentialScope } : {}),
    ...(accountId ? { accountId } : {}),
  };
}

/** What the clients call in place of the SDK's `defaultProvider`: a provider of the environment's credentials. */
export const defaultProvider = (): (() => Promise<EnvCredentials>) => async () => credentialsFromEnv();
