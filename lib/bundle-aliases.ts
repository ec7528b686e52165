import { join } from 'node:path';
import { credentialChainAlias } from './credential-chain';

/**
 * The AWS SDK's event stream support, replaced in every function's bundle by a module that has none
 * (functions/shared/no-event-streams.ts says why): no operation the functions call streams events.
 */
export const eventStreamsAlias = {
  '@smithy/core/event-streams': join(__dirname, '../functions/shared/no-event-streams.ts'),
} as const;

/**
 * Every package the functions' bundles take from the repository instead (esbuild's `alias`): the
 * stack's bundles and the packages bundled beside them (lib/bundling.ts), the bench's and the local
 * server's (bin/local/container-bundles.ts). A module of its own, so that the local server reads it
 * without loading the CDK.
 */
export const functionAliases = { ...credentialChainAlias, ...eventStreamsAlias } as const;
