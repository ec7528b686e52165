import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { openApiDocument } from '../../../functions/shared/openapi/document';
import { functionBuildOptions } from '../../../lib/bundling';
import { apiGatewayEvent, lambdaContext } from '../../helpers/http-event';

/**
 * The shared schema modules and the environment schemas (functions/shared/config.ts) declare each
 * schema `@__PURE__`: a function's bundle leaves out (and never
 * builds at its cold start) the schemas it does not use, such as the response schemas only the OpenAPI
 * document reads. The schema function uses them all, and its bundle must serve the very document the
 * sources build.
 */

let outdir: string;
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'flock-unused-schemas-'));
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** A function's bundle as the stack builds it (without its map); its path. */
async function bundled(group: string): Promise<string> {
  const file = join(outdir, group, 'index.js');
  await build({
    ...functionBuildOptions(join(__dirname, '../../../functions', group, 'handler.ts'), file),
    sourcemap: false,
  });
  return file;
}

/** The component ids a bundle registers (`.register(components, { id: … })`, minified). */
const registeredIds = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/\{id:"([A-Z]\w*)"/g)].map((match) => match[1]!).sort();

describe('schemas a function does not use stay out of its bundle', () => {
  it('users builds the body schema of its one write, not the user, organization and project response schemas', async () => {
    expect(registeredIds(await bundled('users'))).toEqual(['UserUpdate']);
  });

  it('projects builds its write schema and the time zones it checks, not the project response schemas', async () => {
    expect(registeredIds(await bundled('projects'))).toEqual(['ProjectWrite', 'Timezone']);
  });

  it('users builds the environment schema it reads, not those of other functions (GeoIP, KMS)', async () => {
    const source = readFileSync(await bundled('users'), 'utf8');
    for (const message of ['expected s3://bucket/key', 'expected a KMS key ARN'])
      expect(source).not.toContain(message);
  });

  it("the schema function's bundle serves the document the sources build", async () => {
    const file = await bundled('schema');
    const event = apiGatewayEvent({ method: 'GET', path: '/api/schema/' });
    const script = `
      require(process.argv[1]).handler(JSON.parse(process.argv[2]), JSON.parse(process.argv[3]))
        .then((result) => process.stdout.write(result.body));
    `;
    const output = execFileSync(
      process.execPath,
      ['-e', script, file, JSON.stringify(event), JSON.stringify(lambdaContext)],
      { env: { ...process.env, AWS_REGION: 'us-east-1' }, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    );
    expect(JSON.parse(output)).toEqual(openApiDocument('https://api.example.com'));
  });
});
