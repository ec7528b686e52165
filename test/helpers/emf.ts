/**
 * The metrics a function emitted, read back from the EMF lines Powertools writes to stdout (the
 * very lines CloudWatch turns into metrics).
 */
export interface EmfBlob {
  readonly _aws: {
    readonly CloudWatchMetrics: readonly {
      readonly Namespace: string;
      readonly Dimensions: readonly (readonly string[])[];
      readonly Metrics: readonly { readonly Name: string; readonly Unit: string }[];
    }[];
  };
  readonly [key: string]: unknown;
}

export interface EmfCapture {
  readonly blobs: EmfBlob[];
  /** Sum of every value of metric `name` among blobs with exactly these extra dimensions. */
  total(name: string, dimensions?: Readonly<Record<string, string>>): number;
  /** Every value of metric `name` (any dimensions). */
  values(name: string): number[];
  restore(): void;
}

/** Intercepts stdout until `restore()`: EMF lines are kept, other output is passed through. */
export function captureEmf(): EmfCapture {
  const blobs: EmfBlob[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.startsWith('{"_aws"')) {
      for (const line of text.split('\n').filter(Boolean)) blobs.push(JSON.parse(line) as EmfBlob);
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  });
  const valuesOf = (blob: EmfBlob, name: string): number[] => {
    const value = blob[name];
    if (value === undefined) return [];
    return Array.isArray(value) ? (value as number[]) : [value as number];
  };
  const dimensionsMatch = (blob: EmfBlob, dimensions: Readonly<Record<string, string>>): boolean => {
    const declared = blob._aws.CloudWatchMetrics[0]!.Dimensions[0] ?? [];
    const extra = declared.filter((name) => name !== 'service');
    const wanted = Object.keys(dimensions);
    return (
      extra.length === wanted.length &&
      wanted.every((key) => extra.includes(key) && blob[key] === dimensions[key])
    );
  };
  return {
    blobs,
    total: (name, dimensions = {}) =>
      blobs
        .filter((blob) => dimensionsMatch(blob, dimensions))
        .flatMap((blob) => valuesOf(blob, name))
        .reduce((sum, value) => sum + value, 0),
    values: (name) => blobs.flatMap((blob) => valuesOf(blob, name)),
    restore: () => spy.mockRestore(),
  };
}
