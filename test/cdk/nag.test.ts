import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { App } from 'aws-cdk-lib';
import { CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { HttpRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { routes } from '../../functions/routes';
import { buildApp } from '../../lib/app';
import { sourcesKey, synthesizedApp, testApp } from '../helpers/cdk-app';

/**
 * A fresh app built exactly as `bin/app.ts` builds it, bundling disabled, synthesized into its own
 * directory; with CDK's built-in CloudFormation validation as `cdk synth` runs it when asked for.
 */
function flockApp(options: { cloudFormationValidation?: boolean } = {}): {
  app: App;
  outdir: string;
  flock: ReturnType<typeof buildApp>;
} {
  const { app, outdir } = testApp(options);
  return { app, outdir, flock: buildApp(app) };
}

/** Every acknowledgement recorded in the construct tree, with the construct it is attached to. */
function acknowledgements(root: IConstruct): { construct: IConstruct; id: string; reason: string }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .map(([id, reason]) => ({ construct, id, reason })),
  );
}

/** The violations of the validation report synthesis wrote in `outdir`, with their plugin. */
function violationsOf(outdir: string): { plugin: string; message: string }[] {
  const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8'));
  return (report.pluginReports as { pluginName: string; violations?: { description: string }[] }[]).flatMap(
    (r) => (r.violations ?? []).map((v) => ({ plugin: r.pluginName, message: v.description })),
  );
}

/**
 * The app `cdk synth` makes, built once for the file: the first test synthesizes it (cdk-nag's checks
 * and CDK's CloudFormation validation, each a few seconds of CPU with the build), the acknowledgements
 * test reads its construct tree, which synthesis leaves as it was.
 */
let validated: ReturnType<typeof flockApp> | undefined;
const validatedApp = (): ReturnType<typeof flockApp> =>
  (validated ??= flockApp({ cloudFormationValidation: true }));

describe('cdk-nag (AwsSolutions)', () => {
  it('synthesizes the whole app with no unacknowledged finding, nor any of CDK’s CloudFormation validation', () => {
    // GIVEN
    const { app, outdir, flock } = validatedApp();
    // WHEN
    const assembly = app.synth();
    // THEN
    expect(violationsOf(outdir)).toEqual([]);
    // and the templates the other CDK test files read from the cache are this synthesis's: a cached
    // app its sources no longer build fails here
    const cached = synthesizedApp();
    expect(cached.stateful.toJSON()).toEqual(assembly.getStackByName(flock.stateful.stackName).template);
    expect(cached.stateless.toJSON()).toEqual(assembly.getStackByName(flock.stateless.stackName).template);
  });

  it('reports what CDK’s CloudFormation validation finds when a test app asks for it: an out-of-range property', () => {
    // GIVEN an app asking for the validation as the whole app above does, with a queue delaying its
    // messages past SQS's maximum of 900 s (one resource: a whole app's synthesis would prove no more)
    const { app, outdir } = testApp({ cloudFormationValidation: true });
    new CfnResource(new Stack(app, 'Validated'), 'TooLate', {
      type: 'AWS::SQS::Queue',
      properties: { DelaySeconds: 901 },
    });
    // WHEN
    app.synth();
    // THEN
    expect(violationsOf(outdir)).toEqual([
      expect.objectContaining({ plugin: 'CloudFormation Validate', message: expect.stringMatching(/901/) }),
    ]);
  });

  it('fails synthesis when a finding is not acknowledged', () => {
    // GIVEN a queue with neither a DLQ nor TLS enforcement
    const { app, flock } = flockApp();
    new Queue(flock.stateful, 'Unchecked');
    // WHEN / THEN
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });

  it('acknowledges APIG4 (no API Gateway authorizer) once per route, and IAM5 only for the lake prefix the lake writer, its upkeep job and the query function use, and the Athena results bucket of the query function', () => {
    // GIVEN the app as `cdk synth` builds it
    const { app, flock } = validatedApp();
    // WHEN
    const found = acknowledgements(app);
    // THEN
    const rule = (a: { id: string }) => a.id.replace(/\[.*$/, '').replace(/^.*::/, '');
    expect(new Set(found.map(rule))).toEqual(new Set(['AwsSolutions-APIG4', 'AwsSolutions-IAM5']));
    const apig4 = found.filter((a) => rule(a) === 'AwsSolutions-APIG4');
    expect(apig4.every((a) => a.construct instanceof HttpRoute)).toBe(true);
    expect(apig4).toHaveLength(routes.length);
    const iam5 = found.filter((a) => rule(a) === 'AwsSolutions-IAM5');
    expect(new Set(iam5.map((a) => a.construct))).toEqual(
      new Set([
        flock.stateless.httpFunctions.query.role,
        flock.stateless.lake.role,
        flock.stateless.lakeCompaction.function.role,
      ]),
    );
    // The lake prefix for the three, and the Athena results bucket for the query function alone.
    expect(iam5).toHaveLength(4);
    const lakePrefix = iam5.filter(({ id }) => /\[Resource::.*\/events\/\*\]$/.test(id));
    expect(lakePrefix).toHaveLength(3);
    const results = iam5.filter(({ id }) => /\[Resource::.*EventsLakeAthenaResults.*\/\*\]$/.test(id));
    expect(results.map((a) => a.construct)).toEqual([flock.stateless.httpFunctions.query.role]);
    for (const { reason } of found) expect(reason.length).toBeGreaterThan(60);
  });
});

describe('the synthesized app shared by the CDK test files', () => {
  it('is cached under a digest of its sources and their place: any change to a file, or another clone, names another cache entry', () => {
    // GIVEN a tree of sources
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flock-cdk-key-'));
    const clone = `${root}-clone`;
    try {
      fs.mkdirSync(path.join(root, 'lib', 'nested'), { recursive: true });
      fs.writeFileSync(path.join(root, 'lib', 'nested', 'stack.ts'), 'export const retention = 14;');
      fs.writeFileSync(path.join(root, 'lib', 'app.ts'), 'export {};');
      fs.writeFileSync(path.join(root, 'cdk.json'), '{}');
      const key = () => sourcesKey(root, ['lib', 'cdk.json']);
      const first = key();
      // WHEN a nested file changes by one character, THEN the key changes
      fs.writeFileSync(path.join(root, 'lib', 'nested', 'stack.ts'), 'export const retention = 15;');
      const edited = key();
      expect(edited).not.toBe(first);
      // WHEN a file is added, or a file is renamed, THEN it changes again
      fs.writeFileSync(path.join(root, 'lib', 'extra.ts'), '');
      const added = key();
      expect(added).not.toBe(edited);
      fs.renameSync(path.join(root, 'lib', 'extra.ts'), path.join(root, 'lib', 'other.ts'));
      expect(key()).not.toBe(added);
      // and the context (or environment) synthesized with is part of it
      expect(sourcesKey(root, ['lib'], '{"edge":true}')).not.toBe(sourcesKey(root, ['lib']));
      // WHEN the same files sit at another path (another clone of the commit), THEN the key differs:
      // the templates name files by absolute path
      fs.cpSync(root, clone, { recursive: true });
      expect(sourcesKey(clone, ['lib', 'cdk.json'])).not.toBe(key());
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(clone, { recursive: true, force: true });
    }
  });
});
