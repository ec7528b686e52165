import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { build } from 'esbuild';
import { envNames } from '../../../functions/shared/config';
import { functionBuildOptions } from '../../../lib/bundling';

/**
 * What a function's bundle evaluates when Lambda loads it (its cold start), as the stack bundles it:
 * AWS SDK clients that only a rare path needs (KMS to seal or open a plugin config's secret, S3 for an
 * operator's GeoIP database) must wait for that path. Each watched client's files announce themselves
 * when evaluated; the bundle is then loaded in a fresh process, as Lambda does.
 */
const watchedClients = ['client-dynamodb', 'client-kms', 'client-s3'] as const;
/** Besides clients: the whole route table compiled to patterns, which only a request no route serves needs. */
const routeTable = 'route-table';
/** And the OpenAPI document's module, with every route's schemas: only a request for the document needs it. */
const openApiDocument = 'openapi-document';
type Client = (typeof watchedClients)[number] | typeof routeTable | typeof openApiDocument;

const clientFile = new RegExp(`node_modules/@aws-sdk/(${watchedClients.join('|')})/.*\\.js$`);

const announceEvaluation: Plugin = {
  name: 'announce-evaluation',
  setup(bundler) {
    bundler.onLoad({ filter: clientFile }, (args) => {
      const client = clientFile.exec(args.path)![1]!;
      const source = readFileSync(args.path, 'utf8');
      return {
        contents: `globalThis.evaluatedClients?.add(${JSON.stringify(client)});\n${source}`,
        loader: 'js',
      };
    });
    const routeMatcher = /functions\/shared\/http\/route-match\.ts$/;
    bundler.onLoad({ filter: routeMatcher }, (args) => {
      const constructor = 'constructor(routes: readonly Route[]) {';
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(constructor)) throw new Error(`no '${constructor}' in ${args.path}`);
      return {
        contents: source.replace(
          constructor,
          `${constructor} (globalThis as any).evaluatedClients?.add(${JSON.stringify(routeTable)});`,
        ),
        loader: 'ts',
      };
    });
    bundler.onLoad({ filter: /functions\/shared\/openapi\/document\.ts$/ }, (args) => ({
      contents: `(globalThis as any).evaluatedClients?.add(${JSON.stringify(openApiDocument)});\n${readFileSync(args.path, 'utf8')}`,
      loader: 'ts',
    }));
  },
};

const loadScript = `
globalThis.evaluatedClients = new Set();
require(process.argv[1]);
process.stdout.write(JSON.stringify([...globalThis.evaluatedClients]));
`;

const queueUrl = (name: string): string => `https://sqs.us-east-1.amazonaws.com/000000000000/${name}`;

let outdir: string;
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'flock-cold-start-'));
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The watched clients a function's bundle evaluates while it is loaded. */
async function clientsEvaluatedAtLoad(group: string): Promise<Client[]> {
  const file = join(outdir, group, 'index.js');
  await build({
    ...functionBuildOptions(join(__dirname, '../../../functions', group, 'handler.ts'), file),
    // The map is not read here; the announcements are.
    sourcemap: false,
    plugins: [announceEvaluation],
  });
  const output = execFileSync(process.execPath, ['-e', loadScript, file], {
    env: {
      ...process.env,
      AWS_REGION: 'us-east-1',
      [envNames.eventsTable]: 'flock-events',
      [envNames.singleTable]: 'flock-main',
      [envNames.exportsQueueUrl]: queueUrl('flock-exports'),
      [envNames.exportsDlqUrl]: queueUrl('flock-exports-dlq'),
    },
    encoding: 'utf8',
  });
  return (JSON.parse(output) as Client[]).sort();
}

describe('clients evaluated at cold start', () => {
  it('the consumer loads DynamoDB only: S3 waits for a GeoIP database in S3, KMS is never its', async () => {
    expect(await clientsEvaluatedAtLoad('consumer')).toEqual(['client-dynamodb']);
  });

  // KMS's package is imported by name, its client built on the first seal or open of a secret: an
  // import() of the package made esbuild wrap the SDK's modules for a lazy evaluation, which cost every
  // load more than evaluating KMS's two commands does (functions/shared/secrets/kms-cipher.ts).
  it('plugin_configs loads DynamoDB and the KMS package it seals secrets with', async () => {
    expect(await clientsEvaluatedAtLoad('plugin_configs')).toEqual(['client-dynamodb', 'client-kms']);
  });

  it('exports loads DynamoDB, S3 (its every upload) and the KMS package it opens secrets with', async () => {
    expect(await clientsEvaluatedAtLoad('exports')).toEqual(['client-dynamodb', 'client-kms', 'client-s3']);
  });

  it('the schema function builds no schema and no client at load: its first request for the document does', async () => {
    expect(await clientsEvaluatedAtLoad('schema')).toEqual([]);
  });

  it('an HTTP group compiles no route table: only a request no route serves (404 or 405) needs it', async () => {
    expect(await clientsEvaluatedAtLoad('persons')).toEqual(['client-dynamodb']);
  });
});
