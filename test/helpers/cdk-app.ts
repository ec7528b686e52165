import { App } from 'aws-cdk-lib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A CDK app for an assertion test: bundling off, synthesized into a directory of its own that is
 * removed when the test file ends (CDK's default outdir is a new `cdk.out*` under /tmp per app, which
 * nothing removes).
 */
const outdirs: string[] = [];
// Registered when a test file imports this module (jest loads it afresh for each file).
afterAll(() => {
  for (const outdir of outdirs.splice(0)) rmSync(outdir, { recursive: true, force: true });
});

export function testApp(options: { context?: Record<string, unknown> } = {}): { app: App; outdir: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-cdk-test-'));
  outdirs.push(outdir);
  const context = { ...options.context, 'aws:cdk:bundling-stacks': [] };
  return { app: new App({ outdir, context }), outdir };
}
