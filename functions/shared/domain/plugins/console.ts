import type { ConsoleLine, PluginConsole, PluginLogType } from './types';

/**
 * One argument as PostHog's plugin console writes it: plain objects and arrays as JSON (so a log line
 * shows their content, not `[object Object]`), everything else as `String()` does.
 */
function formatArgument(argument: unknown): string {
  const text = String(argument);
  return text === '[object Object]' || Array.isArray(argument) ? JSON.stringify(argument) : text;
}

/** A plugin console's message: its arguments formatted and joined by a space, as PostHog does. */
export function consoleMessage(args: readonly unknown[]): string {
  return args.map(formatArgument).join(' ');
}

/**
 * A `console` for one plugin config that collects its lines, for the caller to store as CONSOLE logs.
 * A class: ingestion makes one per config and event, and its methods are then shared, not made anew.
 */
class CollectingConsole implements PluginConsole {
  readonly lines: ConsoleLine[] = [];

  debug(...args: unknown[]): void {
    this.write('DEBUG', args);
  }
  log(...args: unknown[]): void {
    this.write('LOG', args);
  }
  info(...args: unknown[]): void {
    this.write('INFO', args);
  }
  warn(...args: unknown[]): void {
    this.write('WARN', args);
  }
  error(...args: unknown[]): void {
    this.write('ERROR', args);
  }

  private write(type: PluginLogType, args: readonly unknown[]): void {
    this.lines.push({ type, message: consoleMessage(args) });
  }
}

export function collectingConsole(): { readonly console: PluginConsole; readonly lines: ConsoleLine[] } {
  const console = new CollectingConsole();
  return { console, lines: console.lines };
}
