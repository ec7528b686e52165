import * as fs from 'node:fs';
import * as path from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Validations } from 'aws-cdk-lib';
import { HttpRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { routes } from '../../functions/routes';
import { buildApp } from '../../lib/app';
import { testApp } from '../helpers/cdk-app';

/** A fresh app built exactly as `bin/app.ts` builds it, bundling disabled, synthesized into its own directory. */
function flockApp(): { app: App; outdir: string; flock: ReturnType<typeof buildApp> } {
  const { app, outdir } = testApp();
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

describe('cdk-nag (AwsSolutions)', () => {
  it('synthesizes the whole app with no unacknowledged finding', () => {
    // GIVEN
    const { app, outdir } = flockApp();
    // WHEN
    app.synth();
    // THEN
    const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8'));
    const violations = (report.pluginReports as { violations?: unknown[] }[]).flatMap(
      (r) => r.violations ?? [],
    );
    expect(violations).toEqual([]);
  });

  it('fails synthesis when a finding is not acknowledged', () => {
    // GIVEN a queue with neither a DLQ nor TLS enforcement
    const { app, flock } = flockApp();
    new Queue(flock.stateful, 'Unchecked');
    // WHEN / THEN
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });

  it('acknowledges only APIG4 (no API Gateway authorizer), once per route, and the lake writer’s object prefix, each with its reason', () => {
    // GIVEN
    const { app } = flockApp();
    // WHEN
    const found = acknowledgements(app);
    // THEN
    const routeAcks = found.filter((a) => a.construct instanceof HttpRoute);
    expect(new Set(routeAcks.map((a) => a.id.replace(/^.*::/, '')))).toEqual(new Set(['AwsSolutions-APIG4']));
    expect(routeAcks).toHaveLength(routes.length);
    // The one wildcard: the lake writer's objects under events/ (a new key per flush), nothing wider.
    const others = found.filter((a) => !(a.construct instanceof HttpRoute));
    expect(others.map((a) => [a.construct.node.path, a.id.replace(/^annotation::/i, '')])).toEqual([
      [
        'FlockStateless/LakeFunction/Role',
        'AwsSolutions-IAM5[Resource::FlockStateful:ExportsOutputFnGetAttEventsLakeBucketB6519137Arn9030DF21/events/*]',
      ],
    ]);
    for (const { reason } of found) expect(reason.length).toBeGreaterThan(60);
  });
});
