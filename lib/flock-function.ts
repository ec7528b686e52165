import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { AssetStaging, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { IGrantable, IPrincipal } from 'aws-cdk-lib/aws-iam';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { envNames } from '../functions/shared/config';
import { metricsNamespace } from '../functions/shared/metrics';
import { bundlePackage, functionBundling } from './bundling';
import { cachedPackage, installedPackage, lockedPackage } from './locked-package';

const projectRoot = path.join(__dirname, '..');
const lockfile = path.join(projectRoot, 'package-lock.json');
const nodeModules = path.join(projectRoot, 'node_modules');
/** Where the native packages of the functions' platform are kept once fetched (lib/locked-package.ts). */
const nativePackageCache = path.join(projectRoot, 'node_modules', '.cache', 'flock-native-packages');

/**
 * The logical id CDK gives the L1 child (`Resource`) of a construct `id` created in `scope`: the path
 * below the stack without `Default` components, readable part (no `Resource`, alphanumerics only) plus
 * the first 8 hex digits of the path's MD5, as aws-cdk-lib's `makeUniqueId`
 * (packages/aws-cdk-lib/core/lib/private/uniqueid.ts in aws/aws-cdk) computes it.
 */
function logicalIdBesideScope(scope: Construct, id: string): string {
  const stack = Stack.of(scope);
  const below = scope.node.scopes.slice(scope.node.scopes.indexOf(stack) + 1).map((c) => c.node.id);
  const components = [...below, id, 'Resource'].filter((component) => component !== 'Default');
  const hash = createHash('md5').update(components.join('/')).digest('hex').slice(0, 8).toUpperCase();
  const readable = components
    .filter((component, i) => i === 0 || !components[i - 1]!.endsWith(component))
    .filter((component) => component !== 'Resource')
    .map((component) => component.replace(/[^A-Za-z0-9]/g, ''))
    .join('')
    .slice(0, 240);
  return readable + hash;
}

/** `functions/<name>/handler.ts`: the entry file of one Lambda function (an HTTP group or the consumer). */
export function handlerEntry(name: string): string {
  return path.join(projectRoot, 'functions', name, 'handler.ts');
}

export interface FlockFunctionProps {
  /** Absolute path of the entry file; see `handlerEntry()`. */
  readonly entry: string;
  /** POWERTOOLS_SERVICE_NAME of the function's logs and metrics. */
  readonly serviceName: string;
  /** @default - none */
  readonly description?: string;
  /** @default 256 */
  readonly memorySize?: number;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** Extra environment variables; those of tables, queues and keys come with their grants (function-access.ts). */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default - none: the function shares the account's unreserved concurrency */
  readonly reservedConcurrentExecutions?: number;
  /** Files the code reads at run time, copied into the asset's `folder` beside the bundle. @default - none */
  readonly assetFiles?: AssetFiles;
  /** Packages esbuild leaves out (not installed either: the code must not need them on Lambda). @default - none */
  readonly externalModules?: readonly string[];
  /**
   * Packages of the lockfile built for Lambda's linux-arm64 (native bindings npm installs only on a
   * machine of that platform), put whole into the asset's `node_modules/`, where the bundle's
   * `require` finds them; list them in `externalModules` too. Fetched from the registry at synth time
   * and verified against the lockfile's integrity (lib/locked-package.ts). @default - none
   */
  readonly nativePackages?: readonly string[];
  /**
   * Packages of the lockfile with nothing specific to a platform (JavaScript, WebAssembly) that esbuild
   * leaves out of the bundle and the asset carries whole in its `node_modules/`, copied from this
   * machine's install once its version is checked against the lockfile's (lib/locked-package.ts): a
   * large package the code requires only on some invocations, so that loading the bundle does not
   * compile it. @default - none
   */
  readonly installedPackages?: readonly string[];
  /**
   * Packages of the lockfile that the code only `import()`s on some invocations (an AWS SDK client of a
   * rare path): esbuild leaves them out of the function's bundle and bundles each on its own (every
   * dependency inside, the same settings) into the asset's `node_modules/<name>/index.js`, so that
   * loading the function's bundle does not compile them; the first `import()` loads that file. Its
   * dependencies shared with the function's bundle (the SDK's core) are a second copy there.
   * @default - none
   */
  readonly separatelyBundledPackages?: readonly string[];
}

/** Files (absolute paths) to copy into one folder of a function's asset. */
export interface AssetFiles {
  readonly folder: string;
  readonly files: readonly string[];
}

const quoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** esbuild bundles code only: data files reach the asset by a shell step after bundling (offline, local). */
export function copyAfterBundling({ folder, files }: AssetFiles): ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir: string, outputDir: string) => {
      const target = `${outputDir}/${folder}`;
      return [`mkdir -p ${quoted(target)}`, ...files.map((file) => `cp ${quoted(file)} ${quoted(target)}/`)];
    },
  };
}

/**
 * The shell steps that put each of `names` (linux-arm64 builds of lockfile packages) into the asset's
 * `node_modules/`. Called only when the asset is bundled: a synth with bundling off fetches nothing.
 */
export function nativePackageCommands(names: readonly string[], outputDir: string): string[] {
  return names.flatMap((name) =>
    packageCopyCommands(name, cachedPackage(lockedPackage(lockfile, name), nativePackageCache), outputDir),
  );
}

/** The shell steps that copy package `name`'s `files` into the asset's `node_modules/`. */
function packageCopyCommands(name: string, files: string, outputDir: string): string[] {
  const target = `${outputDir}/node_modules/${name}`;
  return [`mkdir -p ${quoted(target)}`, `cp -R ${quoted(files)}/. ${quoted(target)}/`];
}

/** The shell steps that copy each of `names`, as installed here at the lockfile's version, into the asset. */
function installedPackageCommands(names: readonly string[], outputDir: string): string[] {
  return names.flatMap((name) =>
    packageCopyCommands(name, installedPackage(lockfile, nodeModules, name), outputDir),
  );
}

/**
 * The shell steps that copy each of `names`, bundled on its own at the lockfile's version (built now,
 * into a temporary folder the last step removes), into the asset. NodejsFunction also asks for the
 * steps of a Docker bundling (Docker's paths) whenever it is constructed, bundled or not: those get
 * none, so that a synth with bundling off (the CDK tests) builds nothing; Flock bundles locally.
 */
function separatelyBundledPackageCommands(names: readonly string[], outputDir: string): string[] {
  if (outputDir === AssetStaging.BUNDLING_OUTPUT_DIR) return [];
  return names.flatMap((name) => {
    const packageDir = mkdtempSync(path.join(tmpdir(), 'flock-package-'));
    bundlePackage(name, lockedPackage(lockfile, name).version, packageDir);
    return [...packageCopyCommands(name, packageDir, outputDir), `rm -rf ${quoted(packageDir)}`];
  });
}

/** The steps after bundling: the asset's data files, native, installed and separately bundled packages. */
function afterBundlingHooks(
  assetFiles: AssetFiles | undefined,
  nativePackages: readonly string[],
  installedPackages: readonly string[],
  separatelyBundledPackages: readonly string[],
): ICommandHooks {
  const copyFiles = assetFiles ? copyAfterBundling(assetFiles) : undefined;
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => [
      ...(copyFiles?.afterBundling(inputDir, outputDir) ?? []),
      ...nativePackageCommands(nativePackages, outputDir),
      ...installedPackageCommands(installedPackages, outputDir),
      ...separatelyBundledPackageCommands(separatelyBundledPackages, outputDir),
    ],
  };
}

/**
 * A Node.js Lambda function with Flock's house defaults: Node.js 24 on arm64, bundled locally by esbuild
 * (AWS SDK v3 included, minified, with the source map its stack traces are mapped through), its own log
 * group with a retention, and its own role that holds nothing but the right to write that log group. Everything else is granted on the resource
 * (`table.grantScoped(fn, grant)`, lib/function-access.ts), the function being the grantee.
 *
 * The Lambda function is this construct's default child (id `Default`, which CDK leaves out of logical
 * ids): it keeps the logical id it had when FlockFunction was a NodejsFunction subclass.
 */
export class FlockFunction extends Construct implements IGrantable {
  public readonly function: NodejsFunction;
  /** The function's execution role: the principal every grant adds to. */
  public readonly role: Role;
  public readonly logGroup: LogGroup;
  public readonly grantPrincipal: IPrincipal;
  /** POWERTOOLS_SERVICE_NAME: the `service` dimension of the metrics the function emits. */
  public readonly serviceName: string;
  /** What the asset carries beside the bundle (`props.assetFiles`). */
  public readonly assetFiles?: AssetFiles;

  constructor(scope: Construct, id: string, props: FlockFunctionProps) {
    super(scope, id);
    this.serviceName = props.serviceName;
    this.assetFiles = props.assetFiles;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      // Logs belong to the stateless stack: destroying it removes them, redeploying starts afresh.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A log group whose logical id changes is replaced, and the old one deleted with its entries: keep
    // the id it had when it was created beside the function as `<id>Logs` (docs/deployment.md).
    (this.logGroup.node.defaultChild as CfnLogGroup).overrideLogicalId(
      logicalIdBesideScope(scope, `${id}Logs`),
    );
    // Our own role instead of the AWSLambdaBasicExecutionRole managed policy, which may write to any log
    // group in the account: this one writes only to the function's own group.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the Flock ${props.serviceName} function`,
    });
    this.grantPrincipal = this.role;
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Default', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      role: this.role,
      logGroup: this.logGroup,
      projectRoot,
      depsLockFilePath: lockfile,
      // No NODE_OPTIONS=--enable-source-maps: it parses the map at every cold start; the bundle maps
      // its own stack traces when one is first formatted (functions/shared/source-maps.ts).
      environment: {
        [envNames.serviceName]: props.serviceName,
        ...props.environment,
      },
      bundling: {
        ...functionBundling,
        mainFields: [...functionBundling.mainFields],
        // Bundle AWS SDK v3 rather than rely on the runtime's copy (pinned versions, tree-shaken).
        externalModules: [
          ...(props.externalModules ?? []),
          ...(props.installedPackages ?? []),
          ...(props.separatelyBundledPackages ?? []),
        ],
        format: OutputFormat.CJS,
        ...(props.assetFiles ||
        props.nativePackages ||
        props.installedPackages ||
        props.separatelyBundledPackages
          ? {
              commandHooks: afterBundlingHooks(
                props.assetFiles,
                props.nativePackages ?? [],
                props.installedPackages ?? [],
                props.separatelyBundledPackages ?? [],
              ),
            }
          : {}),
      },
    });
  }

  /** Sets an environment variable of the function. */
  public addEnvironment(name: string, value: string): this {
    this.function.addEnvironment(name, value);
    return this;
  }

  /** Lambda's count of invocations that failed: thrown, timed out or crashed. @default sum over 5 minutes */
  public metricErrors(props?: MetricOptions): Metric {
    return this.function.metricErrors(props);
  }

  /** Lambda's count of invocations it refused: the function's concurrency was exhausted. @default sum over 5 minutes */
  public metricThrottles(props?: MetricOptions): Metric {
    return this.function.metricThrottles(props);
  }

  /** Lambda's duration of the function's invocations (ms). @default average over 5 minutes */
  public metricDuration(props?: MetricOptions): Metric {
    return this.function.metricDuration(props);
  }

  /**
   * A metric the function's code emits (EMF, functions/shared/metrics.ts): `metricName` in the Flock
   * namespace with the function's `service` dimension. @default sum per minute
   */
  public metricEmitted(metricName: string, props?: MetricOptions): Metric {
    return new Metric({
      namespace: metricsNamespace,
      metricName,
      dimensionsMap: { service: this.serviceName },
      statistic: Stats.SUM,
      period: Duration.minutes(1),
      label: `${metricName} (${this.serviceName})`,
      ...props,
    });
  }
}
