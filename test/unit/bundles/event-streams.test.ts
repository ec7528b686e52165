import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SelectObjectContentCommand } from '@aws-sdk/client-s3';
import {
  EventStreamSerde,
  eventStreamSerdeProvider,
  resolveEventStreamSerdeConfig,
} from '../../../functions/shared/no-event-streams';
import { containerBundles } from '../../../bin/local/container-bundles';
import { eventStreamsAlias, functionAliases } from '../../../lib/bundle-aliases';
import { functionBuildOptions, functionBundling } from '../../../lib/bundling';

/**
 * The functions' bundles carry no AWS SDK event stream support (functions/shared/no-event-streams.ts):
 * no operation they call streams events, and the module the SDK's protocols `import()` for one made
 * esbuild wrap most of `@smithy/core` in functions run on first use, parsed twice at every cold start.
 */

const functionsDir = join(__dirname, '../../../functions');

let outdir: string;
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'flock-event-streams-'));
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Every `.ts` file under `dir`, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The AWS SDK commands the functions import (statically or by `import()`), by package. */
function importedCommands(): Map<string, Set<string>> {
  const byPackage = new Map<string, Set<string>>();
  const imports =
    /(?:import\s*(?:type\s*)?\{([\w\s,]*)\}\s*from\s*|\{([\w\s,]*)\}\s*=\s*await\s+import\()'(@aws-sdk\/(?:client-[a-z0-9-]+|lib-dynamodb))'/g;
  for (const file of sources(functionsDir))
    for (const match of readFileSync(file, 'utf8').matchAll(imports)) {
      const names = (match[1] ?? match[2]!).split(',').map(
        (name) =>
          name
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!,
      );
      const commands = byPackage.get(match[3]!) ?? new Set<string>();
      for (const name of names) if (name.endsWith('Command')) commands.add(name);
      byPackage.set(match[3]!, commands);
    }
  return byPackage;
}

interface SdkCommand {
  readonly schema: Record<symbol, unknown>;
  readonly clientCommand?: SdkCommand;
  resolveMiddleware(stack: unknown, config: unknown, options: unknown): unknown;
}
type CommandClass = new (input: object) => SdkCommand;

/**
 * Whether the operation a command sends has an event stream in its input or output, as the SDK tells
 * when it prepares the command (and marks its operation's schema): the command's middleware resolved
 * with a client's configuration, nothing sent.
 */
function streamsEvents(Command: CommandClass): boolean {
  const outer = new Command({});
  const command = outer.clientCommand ?? outer;
  const client = new DynamoDBClient({ region: 'us-east-1' });
  command.resolveMiddleware(client.middlewareStack, client.config, {});
  return command.schema[Symbol.for('@smithy/op-event-stream')] === true;
}

describe('AWS SDK event streams stay out of the functions', () => {
  it('no command a function imports has an event stream', async () => {
    const commands = importedCommands();
    expect([...commands.keys()]).toEqual(
      expect.arrayContaining(['@aws-sdk/lib-dynamodb', '@aws-sdk/client-sqs', '@aws-sdk/client-s3']),
    );
    expect([...commands.get('@aws-sdk/client-s3')!]).toEqual(expect.arrayContaining(['GetObjectCommand']));
    const streaming: string[] = [];
    for (const [pkg, names] of commands) {
      const module = (await import(pkg)) as Record<string, CommandClass>;
      for (const name of names) {
        expect([pkg, name, typeof module[name]]).toEqual([pkg, name, 'function']);
        if (streamsEvents(module[name]!)) streaming.push(`${pkg} ${name}`);
      }
    }
    expect(streaming).toEqual([]);
    // The check tells: S3's one operation with an event stream has it.
    expect(streamsEvents(SelectObjectContentCommand as unknown as CommandClass)).toBe(true);
  });

  it('the module in their place configures a client as the SDK does and fails on an event stream', () => {
    const config = resolveEventStreamSerdeConfig({ eventStreamSerdeProvider });
    const marshaller = config.eventStreamMarshaller as ReturnType<typeof eventStreamSerdeProvider>;
    expect(marshaller.serialize).toThrow(/^AWS SDK event streams are left out of Flock's function bundles/);
    expect(marshaller.deserialize).toThrow(/left out/);
    expect(() => new EventStreamSerde()).toThrow(/left out/);
  });

  it('the stack, the bench and the local server bundle with the alias', async () => {
    const to = eventStreamsAlias['@smithy/core/event-streams'];
    expect(relative(functionsDir, to)).toBe('shared/no-event-streams.ts');
    expect(functionBundling.esbuildArgs).toMatchObject({ '--alias:@smithy/core/event-streams': to });
    expect(functionBuildOptions('entry.ts', 'out.js').alias).toEqual(functionAliases);
    const bundles = await containerBundles(
      [{ name: 'users', modulePath: join(functionsDir, 'users/handler.ts') }],
      [],
      { cacheDir: join(outdir, 'local') },
    );
    const source = readFileSync(bundles.users!, 'utf8');
    expect(source).toContain('AWS SDK event streams are left out');
    expect(source).not.toContain('EventStreamCodec');
  });

  it("a bundled S3 client holds none of the SDK's event stream code, is built, and fails only on an event stream", async () => {
    const file = join(outdir, 'index.js');
    await build({
      ...functionBuildOptions('', file),
      entryPoints: undefined,
      stdin: {
        contents:
          `import { S3Client } from '@aws-sdk/client-s3';\n` +
          `const client = new S3Client({ region: 'us-east-1' });\n` +
          `try { client.config.eventStreamMarshaller.deserialize(); } catch (error) { process.stdout.write(error.message); }\n`,
        resolveDir: functionsDir,
        loader: 'ts',
      },
      sourcemap: false,
    });
    const source = readFileSync(file, 'utf8');
    for (const part of ['EventStreamCodec', 'MessageDecoderStream', 'HeaderMarshaller'])
      expect(source).not.toContain(part);
    const output = execFileSync(process.execPath, [file], {
      env: { PATH: process.env.PATH, AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' },
      encoding: 'utf8',
    });
    expect(output).toMatch(/^AWS SDK event streams are left out of Flock's function bundles/);
  });

  // exports and plugin_configs: with KMS's package imported by name (functions/shared/secrets/kms-cipher.ts).
  it.each(['persons', 'exports', 'plugin_configs'])(
    "%s's bundle evaluates the SDK's modules in place, not wrapped for a lazy import",
    async (group) => {
      const file = join(outdir, group, 'index.js');
      await build({
        ...functionBuildOptions(join(functionsDir, group, 'handler.ts'), file),
        sourcemap: false,
      });
      // esbuild's lazily evaluated ES modules, minified: `name=init(()=>{…})`.
      const wrapped = readFileSync(file, 'utf8').match(/[\w$]+=[\w$]+\(\(\)=>\{/g) ?? [];
      expect(wrapped.length).toBeLessThan(10);
    },
  );
});
