import { collectingConsole, consoleMessage } from '../../../functions/shared/domain/plugins/console';
import { downsamplingPlugin } from '../../../functions/shared/domain/plugins/downsampling';
import { setupPluginConfig } from '../../../functions/shared/domain/plugins/setup';

describe('plugin console', () => {
  it("joins arguments with a space, objects and arrays as JSON, others as String() (PostHog's format)", () => {
    expect(consoleMessage(['sent', 3, 'events', { to: 's3' }, ['a', 1], null, undefined, true])).toBe(
      'sent 3 events {"to":"s3"} ["a",1] null undefined true',
    );
  });

  it('collects each call as a line of its type', () => {
    const { console, lines } = collectingConsole();
    console.debug('d');
    console.log('l');
    console.info('i');
    console.warn('w');
    console.error('e', new Error('x'));
    expect(lines).toEqual([
      { type: 'DEBUG', message: 'd' },
      { type: 'LOG', message: 'l' },
      { type: 'INFO', message: 'i' },
      { type: 'WARN', message: 'w' },
      { type: 'ERROR', message: 'e Error: x' },
    ]);
  });
});

describe('plugin setup', () => {
  const NOW = new Date('2024-05-01T10:00:00.000Z');

  it("returns the plugin's state for a good config", () => {
    expect(setupPluginConfig(downsamplingPlugin, { percentage: '10' }, NOW)).toEqual({
      ok: true,
      state: { percentage: 10, randomSampling: false },
    });
  });

  it('returns the error record, without an event, for a config the plugin refuses', () => {
    const result = setupPluginConfig(downsamplingPlugin, { percentage: '200' }, NOW);
    expect(result).toMatchObject({
      ok: false,
      error: {
        message: 'Percentage must be a number between 0 and 100.',
        name: 'Error',
        time: '2024-05-01T10:00:00.000Z',
        event: null,
      },
    });
  });
});
