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

/** A `console` for one plugin config that collects its lines, for the caller to store as CONSOLE logs. */
export function collectingConsole(): { readonly console: PluginConsole; readonly lines: ConsoleLine[] } {
  const lines: ConsoleLine[] = [];
  const writer =
    (type: PluginLogType) =>
    (...args: unknown[]): void => {
      lines.push({ type, message: consoleMessage(args) });
    };
  return {
    console: {
      debug: writer('DEBUG'),
      log: writer('LOG'),
      info: writer('INFO'),
      warn: writer('WARN'),
      error: writer('ERROR'),
    },
    lines,
  };
}
