import { PassThrough } from 'node:stream';
import { confirmOnTerminal } from '../../../bin/ops/confirm';

const question = 'Purge the dead-letter queue flock-dlq (http://127.0.0.1/q/flock-dlq): 2 visible, …';

/** A terminal whose keyboard types `typed`; what it shows is collected. */
function terminal(typed: string | undefined, isTTY = true) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  if (typed !== undefined) setImmediate(() => input.write(`${typed}\n`));
  return { input, output, shown: () => shown };
}

describe('confirming a destructive command on the terminal', () => {
  it('shows the question before asking, and goes ahead only on yes', async () => {
    // Prepare
    const accepting = terminal('yes');
    const refusing = terminal('y');

    // Act
    const accepted = await confirmOnTerminal(question, false, accepting);
    const refused = await confirmOnTerminal(question, false, refusing);

    // Assess
    expect(accepted).toBe(true);
    expect(accepting.shown()).toBe(`${question}\nType yes to go ahead: `);
    expect(refused).toBe(false);
  });

  it('with --yes, shows the question and goes ahead without reading an answer', async () => {
    const screen = terminal(undefined);
    await expect(confirmOnTerminal(question, true, screen)).resolves.toBe(true);
    expect(screen.shown()).toBe(`${question}\n`);
  });

  it('without a terminal or --yes, refuses, naming the question and --yes', async () => {
    await expect(confirmOnTerminal(question, false, terminal(undefined, false))).rejects.toThrow(
      `${question}\nNo terminal to confirm on: pass --yes to confirm.`,
    );
  });
});
