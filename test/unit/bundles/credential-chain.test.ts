import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { credentialsFromEnv, defaultProvider } from '../../../functions/shared/env-credentials';
import { functionBuildOptions, functionBundling } from '../../../lib/bundling';
import { credentialChainAlias } from '../../../lib/credential-chain';
import { containerBundles } from '../../../bin/local/container-bundles';

/**
 * Deployed functions take their credentials from the environment, where Lambda puts the execution
 * role's: the SDK's default chain (SSO, INI files, processes, web identity, metadata services, and the
 * clients they call) stays out of every bundle.
 */

let outdir: string;
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'flock-credential-chain-'));
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const lambdaEnv = {
  AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'token',
};

describe('credentials from the environment', () => {
  it("reads the execution role's credentials Lambda sets", async () => {
    expect(credentialsFromEnv(lambdaEnv)).toEqual({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
    const expiring = credentialsFromEnv({ ...lambdaEnv, AWS_CREDENTIAL_EXPIRATION: '2026-11-27T16:00:00Z' });
    expect(expiring.expiration).toEqual(new Date('2026-11-27T16:00:00Z'));
  });

  it('fails naming the variables when they are missing', async () => {
    expect(() => credentialsFromEnv({})).toThrow(/AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are unset/);
    const saved = process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_ACCESS_KEY_ID;
    try {
      await expect(defaultProvider()()).rejects.toThrow(/AWS_ACCESS_KEY_ID/);
    } finally {
      if (saved !== undefined) process.env.AWS_ACCESS_KEY_ID = saved;
    }
  });

  it('the stack and the bench bundle with the same alias', () => {
    const to = credentialChainAlias['@aws-sdk/credential-provider-node'];
    expect(to).toMatch(/functions\/shared\/env-credentials\.ts$/);
    expect(functionBundling.esbuildArgs).toMatchObject({ '--alias:@aws-sdk/credential-provider-node': to });
    expect(functionBuildOptions('entry.ts', 'out.js').alias).toMatchObject(credentialChainAlias);
  });

  it("a function's bundle holds none of the chain's other providers, and its clients sign with the environment's credentials", async () => {
    const entry = join(outdir, 'entry.ts');
    const file = join(outdir, 'index.js');
    // The users function's own client, asked for the credentials it would sign a request with.
    writeFileSync(
      entry,
      `import { documentClient } from ${JSON.stringify(join(__dirname, '../../../functions/shared/db/client'))};\n` +
        `export const credentials = () => documentClient.config.credentials();\n`,
    );
    await build({ ...functionBuildOptions(entry, file), sourcemap: false });
    const source = readFileSync(file, 'utf8');
    for (const provider of [
      'GetRoleCredentials',
      'AssumeRoleWithWebIdentity',
      'credential_process',
      'sso_session',
    ])
      expect(source).not.toContain(provider);
    const output = execFileSync(
      process.execPath,
      [
        '-e',
        'require(process.argv[1]).credentials().then((c) => process.stdout.write(JSON.stringify(c)))',
        file,
      ],
      { env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', ...lambdaEnv }, encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', sessionToken: 'token' });
  });

  it("the local server's bundles take their credentials as the deployed ones do", async () => {
    const modulePath = join(__dirname, '../../../functions/users/handler.ts');
    const bundles = await containerBundles([{ name: 'users', modulePath }], [], {
      cacheDir: join(outdir, 'local'),
    });
    const source = readFileSync(bundles.users!, 'utf8');
    expect(source).toContain('No AWS credentials in the environment');
    expect(source).not.toContain('GetRoleCredentials');
  });
});
