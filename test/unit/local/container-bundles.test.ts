import { cpSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerBundles } from '../../../bin/local/container-bundles';
import { LocalFunction } from '../../../bin/local/function-host';

interface Loaded {
  wrappedFor: string;
  inner: { version: number; preloadedBy: string; compilesTypeScript: boolean; file: string };
}

describe('container bundles: each local function container loads one prebuilt file', () => {
  let dir: string;
  let fn: LocalFunction | undefined;

  beforeEach(() => {
    // A copy of the fixtures, so that a test can edit a source; a cache of its own.
    dir = mkdtempSync(join(tmpdir(), 'flock-bundles-test-'));
    cpSync(join(__dirname, '../../fixtures/bundled'), join(dir, 'src'), { recursive: true });
  });

  afterEach(async () => {
    await fn?.stop();
    fn = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const bundle = (): Promise<Record<string, string>> =>
    containerBundles(
      [{ name: 'fixture', modulePath: join(dir, 'src/handler.ts') }],
      [join(dir, 'src/preload.ts')],
      { cacheDir: join(dir, 'cache') },
    );

  const invoke = async (file: string): Promise<Loaded> => {
    await fn?.stop();
    fn = new LocalFunction({
      functionName: 'flock-fixture',
      modulePath: join(dir, 'src/handler.ts'),
      bundle: file,
      timeoutMs: 30_000,
    });
    return fn.invoke<Loaded>({});
  };

  it('runs the handler from its bundle, after the preloads, which share its modules', async () => {
    // Prepare
    const { fixture } = await bundle();

    // Act
    const loaded = await invoke(fixture!);

    // Assess: the preload wrapped the handler and set the state the handler reads (one module instance).
    expect(loaded.wrappedFor).toBe('flock-fixture');
    expect(loaded.inner).toEqual({
      version: 1,
      preloadedBy: 'preload',
      compilesTypeScript: false,
      file: fixture,
    });
  });

  it('reuses the build while its sources are unchanged, and rebuilds when one changes', async () => {
    // Prepare
    const first = (await bundle()).fixture!;

    // Act
    const again = (await bundle()).fixture!;
    writeFileSync(join(dir, 'src/version.ts'), 'export const version = 2;\n');
    // Another second, as an edit a moment later would have (whatever the file system's granularity).
    const later = new Date(Date.now() + 1_000);
    utimesSync(join(dir, 'src/version.ts'), later, later);
    const rebuilt = (await bundle()).fixture!;

    // Assess
    expect(again).toBe(first);
    expect(rebuilt).not.toBe(first);
    expect((await invoke(rebuilt)).inner.version).toBe(2);
  });
});
