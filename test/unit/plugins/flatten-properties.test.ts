import {
  flattenProperties,
  flattenPropertiesPlugin,
} from '../../../functions/shared/domain/plugins/flatten-properties';
import { metaFor, pluginEvent, run } from './fixtures';

const flatten = async (event: string, properties: Record<string, unknown>, separator = '__') =>
  (
    await run(
      flattenPropertiesPlugin,
      pluginEvent({ event, properties }),
      metaFor(flattenPropertiesPlugin, { separator }),
    )
  )?.properties;

describe('Property Flattener plugin', () => {
  it('adds a flat key for every nested value and keeps the nested originals (PostHog test)', async () => {
    const nested = {
      a: {
        b: {
          c: { d: { e: { f: 'nested under e' }, z: 'nested under d' }, z: 'nested under c' },
          z: 'nested under b',
        },
        z: 'nested under a',
      },
      w: { array: [{ z: 'nested in w array' }] },
      x: 'not nested',
      y: 'not nested either',
    };
    expect(await flatten('test', structuredClone(nested))).toEqual({
      ...nested,
      a__b__c__d__e__f: 'nested under e',
      a__b__c__d__z: 'nested under d',
      a__b__c__z: 'nested under c',
      a__b__z: 'nested under b',
      a__z: 'nested under a',
      w__array__0__z: 'nested in w array',
    });
  });

  it("adds the flat keys to the event's own properties, in the order a copy would have them", async () => {
    // Arrange: a nested value before and after plain ones, and a flat key the client already sent
    const sent = () => ({ a: { b: 1 }, x: 'plain', a__b: 'sent', $set: { p: { q: 2 } }, c: [3] });
    const given = sent();
    const event = pluginEvent({ event: 'test', properties: given });

    // Act
    const result = await run(
      flattenPropertiesPlugin,
      event,
      metaFor(flattenPropertiesPlugin, { separator: '__' }),
    );

    // Assess: the object given, with the copy's keys, order and values; no second object of every key
    expect(result?.properties).toBe(given);
    expect(Object.entries(given)).toEqual(Object.entries(flattenProperties(sent(), '__')));
  });

  it('uses the configured separator', async () => {
    expect(await flatten('test', { a: { b: 1 } }, '.')).toEqual({ a: { b: 1 }, 'a.b': 1 });
    expect(await flatten('test', { a: [1, 2] }, '/')).toEqual({ a: [1, 2], 'a/0': 1, 'a/1': 2 });
  });

  it('flattens inside $set and $set_once rather than into the event (PostHog test)', async () => {
    const example = { company_size: 20, category: ['a', 'b'] };
    expect(await flatten('$identify', { $set: { example }, $set_once: { example } })).toEqual({
      $set: { example, example__company_size: 20, example__category__0: 'a', example__category__1: 'b' },
      $set_once: { example, example__company_size: 20, example__category__0: 'a', example__category__1: 'b' },
    });
  });

  it('flattens inside $group_set', async () => {
    expect(await flatten('$groupidentify', { $group_set: { ads: { google: true }, pixel: true } })).toEqual({
      $group_set: { ads: { google: true }, pixel: true, ads__google: true },
    });
  });

  it('leaves $autocapture events alone and never flattens internal properties', async () => {
    const elements = [{ tag_name: 'span', nth_child: 1 }];
    expect(await flatten('$autocapture', { $elements: elements, x: { y: 1 } })).toEqual({
      $elements: elements,
      x: { y: 1 },
    });
    expect(await flatten('test', { $active_feature_flags: ['a'], $groups: { company: 'x' } })).toEqual({
      $active_feature_flags: ['a'],
      $groups: { company: 'x' },
    });
  });

  it('drops deny-listed keys met below the top level, and lifts a nested $set to the top, as the plugin does', async () => {
    expect(await flatten('test', { a: { $groups: { g: 1 }, b: 2, $set: { c: 3 } } })).toEqual({
      a: { $groups: { g: 1 }, b: 2, $set: { c: 3 } },
      a__b: 2,
      $set: { c: 3 },
    });
  });

  it('writes the originals first, then the flat keys in the order met, a key met again in its first place', async () => {
    const properties = { a: { b: 1 }, a__b: 'sent', c: { d: [1], $set: { e: { f: 1 } } }, x: 2 };
    expect(JSON.stringify(await flatten('test', properties))).toBe(
      '{"a":{"b":1},"a__b":1,"c":{"d":[1],"$set":{"e":{"f":1}}},"x":2,"c__d__0":1,"$set":{"e":{"f":1},"e__f":1}}',
    );
  });

  it('keeps empty objects as they are, with no flat key', async () => {
    expect(await flatten('test', { a: {}, b: { c: {} } })).toEqual({ a: {}, b: { c: {} }, b__c: {} });
  });

  it('throws on a null $set, as the plugin does', async () => {
    await expect(flatten('test', { $set: null })).rejects.toThrow(TypeError);
  });
});
