import type { DeadMessage } from '../../../bin/ops/dlq';
import { describeMessage } from '../../../bin/ops/dlq-format';
import { printable, printableJson } from '../../../bin/ops/terminal-text';

/** Every character a hostile tenant could use to drive or mislead an operator's terminal. */
const hostile = [
  '\u001b]0;pwned\u0007', // OSC: retitles the window
  '\u001b[2J', // CSI: clears the screen
  '\r', // returns to the line start, to overwrite what was printed
  '\n', // forges a line
  '\u009b31m', // C1 CSI
  '\u0085', // C1 next line
  '\u202e', // right-to-left override
  '\u202a\u202b\u202c\u202d',
  '\u2066\u2067\u2068\u2069', // isolates
  '\u200e\u200f\u061c', // marks
  '\u200b\u2028\u2029\ufeff', // invisible and line-breaking
  '\u{e0041}', // a tag character
];
const unsafeCharacter =
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/;

describe('text others chose, printed for an operator', () => {
  it('escapes C0 and C1 controls, bidi and invisible characters as \\uXXXX, and nothing else', () => {
    // Act
    const escaped = hostile.map(printable);

    // Assess
    for (const text of escaped) expect(text).not.toMatch(unsafeCharacter);
    expect(printable('a\u202egnp.exe')).toBe('a\\u202egnp.exe');
    expect(printable('\u001b[2J')).toBe('\\u001b[2J');
    expect(printable('\u{e0041}')).toBe('\\udb40\\udc41');
    expect(printable('Ünïcödé 事件 🦆 tab-free')).toBe('Ünïcödé 事件 🦆 tab-free');
  });

  it('prints a dead message with every field a client or endpoint chose escaped, on its own lines', () => {
    // Prepare
    const message: DeadMessage = {
      messageId: 'm-1',
      projectId: 7,
      eventCount: 1,
      eventNames: [`sign\u202eup${hostile.join('')}`],
      distinctIds: ['alice\nattempt 5 at now: all good', '\u001b]0;pwned\u0007'],
      sizeBytes: 10,
      firstSent: null,
      receiveCount: 6,
      undecodable: 'bad\u0085body',
      failures: [
        {
          messageId: 'm-1',
          attempt: 1,
          at: '2026-11-26T00:00:00.000Z',
          errorName: 'Error\u009b2J',
          errorMessage: 'endpoint said \u001b[31mOK\u001b[0m\r\u2067hidden',
        },
      ],
    };

    // Act
    const text = describeMessage(message);

    // Assess: four lines, as for any message, and no raw unsafe character on any.
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).not.toMatch(unsafeCharacter);
    expect(lines[1]).toContain('alice\\u000aattempt 5 at now: all good');
    expect(lines[3]).toContain('endpoint said \\u001b[31mOK\\u001b[0m\\u000d\\u2067hidden');
  });

  it('prints JSON whose strings carry no raw bidi or C1 character and that parses back unchanged', () => {
    // Prepare
    const value = { eventNames: hostile, nested: [{ id: 'x\u202ey' }] };

    // Act
    const json = printableJson(value);

    // Assess
    expect(json.split('\n').every((line) => !unsafeCharacter.test(line))).toBe(true);
    expect(JSON.parse(json)).toEqual(value);
  });
});
