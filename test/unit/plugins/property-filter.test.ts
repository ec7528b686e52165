import { propertyFilterPlugin } from '../../../functions/shared/domain/plugins/property-filter';
import { metaFor, pluginEvent, run } from './fixtures';

const filtering = (properties: string) => metaFor(propertyFilterPlugin, { properties });

describe('Property Filter plugin', () => {
  it('removes top-level and dot-path properties, leaving their siblings (PostHog test)', async () => {
    const meta = filtering(
      'gender,$set.gender,$set.age,foo.bar.baz.one,nonExisting,$set.$not_in_props,no-such.with-dot',
    );
    const event = await run(
      propertyFilterPlugin,
      pluginEvent({
        properties: {
          name: 'Mr. Hog',
          gender: 'male',
          age: 12,
          $set: { age: 35, pet: 'dog', firstName: 'Post', gender: 'female' },
          foo: { bar: { baz: { one: 'one', two: 'two' } } },
        },
      }),
      meta,
    );
    expect(event?.properties).toEqual({
      name: 'Mr. Hog',
      age: 12,
      $set: { pet: 'dog', firstName: 'Post' },
      foo: { bar: { baz: { two: 'two' } } },
    });
  });

  it('returns a new event object with a copied properties object', async () => {
    const input = pluginEvent({ properties: { a: 1, b: 2 } });
    const output = await run(propertyFilterPlugin, input, filtering('a'));
    expect(output).not.toBe(input);
    expect(output?.properties).toEqual({ b: 2 });
    expect(input.properties).toEqual({ a: 1, b: 2 });
  });

  it('gives an event without properties an empty properties object', async () => {
    const event = await run(propertyFilterPlugin, pluginEvent(), filtering('foo'));
    expect(event?.properties).toEqual({});
  });

  it('removes the event ip when $ip is listed', async () => {
    const input = pluginEvent({ ip: '1.2.3.4', properties: { $ip: '1.2.3.4', x: 1 } });
    const event = await run(propertyFilterPlugin, input, filtering('$ip'));
    expect(event).not.toHaveProperty('ip');
    expect(event?.properties).toEqual({ x: 1 });
  });

  it('throws, as the plugin does, when a path goes through a value that is not an object', async () => {
    const event = pluginEvent({ properties: { a: 'text' } });
    await expect(run(propertyFilterPlugin, event, filtering('a.b'))).rejects.toThrow(TypeError);
  });

  it('fails to set up without a properties list', () => {
    expect(() => propertyFilterPlugin.setup({})).toThrow(TypeError);
  });
});
