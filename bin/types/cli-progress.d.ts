declare module 'cli-progress' {
  export class SingleBar {
    constructor(options: Record<string, unknown>, preset?: unknown);
    start(total: number, value: number): void;
    update(value: number): void;
    setTotal(total: number): void;
    stop(): void;
  }
  export const Presets: { readonly shades_classic: unknown };
}
