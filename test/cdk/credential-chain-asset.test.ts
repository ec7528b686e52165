import { App, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlockFunction, handlerEntry } from '../../lib/flock-function';

/**
 * A function's asset, bundled for real as the stack packages it (NodejsFunction running esbuild with
 * lib/bundling.ts's settings): its credentials come from the environment Lambda sets, and the AWS SDK's
 * default chain (SSO, STS and sign-in clients, INI files, credential processes) is not in the bundle.
 */
describe("a function asset's credentials", () => {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-credential-asset-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("holds none of the SDK's default chain beyond the environment's credentials", () => {
    // GIVEN the users function, in a stack of its own
    const stack = new Stack(
      new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } }),
      'CredentialAsset',
    );
    const fn = new FlockFunction(stack, 'Users', { entry: handlerEntry('users'), serviceName: 'users' });

    // WHEN its asset is staged
    const assetPath = (fn.function.node.defaultChild as CfnFunction).getMetadata('aws:asset:path') as string;
    const bundle = readFileSync(join(outdir, assetPath, 'index.js'), 'utf8');

    // THEN the bundle reads the environment's credentials and carries no other provider
    expect(bundle).toContain('AWS_SECRET_ACCESS_KEY');
    for (const provider of ['GetRoleCredentials', 'AssumeRoleWithWebIdentity', 'credential_process'])
      expect(bundle).not.toContain(provider);
  });
});
