import { join } from 'node:path';

/**
 * The AWS SDK's default credential chain, replaced in every function's bundle by the environment's
 * credentials, which Lambda always sets (functions/shared/env-credentials.ts says why): the stack's
 * bundles (lib/bundling.ts) and the local server's (bin/local/container-bundles.ts). A module of its
 * own, so that the local server reads it without loading the CDK.
 */
export const credentialChainAlias = {
  '@aws-sdk/credential-provider-node': join(__dirname, '../functions/shared/env-credentials.ts'),
} as const;
