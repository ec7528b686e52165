import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';

export interface Terminal {
  readonly input: Readable & { readonly isTTY?: boolean };
  readonly output: Writable;
}

const processTerminal: Terminal = { input: process.stdin, output: process.stderr };

/**
 * Asks `question` on the terminal and accepts only the answer `yes`; with `assumeYes` (`--yes`) it
 * says the question and accepts without asking. Without a terminal to ask on it refuses, naming the
 * question and `--yes`, rather than act unasked.
 */
export async function confirmOnTerminal(
  question: string,
  assumeYes: boolean | undefined,
  terminal: Terminal = processTerminal,
): Promise<boolean> {
  if (assumeYes) {
    terminal.output.write(`${question}\n`);
    return true;
  }
  if (!terminal.input.isTTY)
    throw new Error(`${question}\nNo terminal to confirm on: pass --yes to confirm.`);
  const prompt = createInterface({ input: terminal.input, output: terminal.output });
  try {
    return (await prompt.question(`${question}\nType yes to go ahead: `)).trim() === 'yes';
  } finally {
    prompt.close();
  }
}
