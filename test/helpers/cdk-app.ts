import { App } from 'aws-cdk-lib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A CDK app for an assertion test: bundling off, synthesized into a directory of its own that is
 * removed when the test file ends (CDK's default outdir is a new `cdk.out*` under /tmp per app, which
 * nothing removes).
 *
 * CDK's built-in CloudFormation validation is off unless asked for: at a process's first synthesis
 * it instantiates its WebAssembly rule engine, about 5 s of CPU, and jest loads aws-cdk-lib afresh
 * for every test file. It fails no synthesis (its findings are warnings unless the feature flag
 * `@aws-cdk/core:validateAgainstDefaultRules` is set), so it changes no other test's outcome;
 * `nag.test.ts` synthesizes the whole app with it, as `cdk synth` does, and asserts that its report
 * is empty.
 */
const outdirs: string[] = [];
// Registered when a test file imports this module (jest loads it afresh for each file).
afterAll(() => {
  for (const outdir of outdirs.splice(0)) rmSync(outdir, { recursive: true, force: true });
});

export function testApp(
  options: { context?: Record<string, unknown>; cloudFormationValidation?: boolean } = {},
): { app: App; outdir: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-cdk-test-'));
  outdirs.push(outdir);
  const context = { ...options.context, 'aws:cdk:bundling-stacks': [] };
  const builtinCloudFormationValidation = options.cloudFormationValidation ?? false;
  return { app: new App({ outdir, context, builtinCloudFormationValidation }), outdir };
}
