import { nestsDeeperThan } from '../../../../functions/shared/http/json-depth';

describe('nestsDeeperThan', () => {
  it('counts each array and object as one level, scalars as none', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'c' }] }, 2)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 'c' }] }, 3)).toBe(false);
  });

  it('finds the one deep branch among shallow ones, in arrays and objects', () => {
    const deep = JSON.parse(`{"x":1,"y":[2,3],"z":[{"w":${'['.repeat(200)}${']'.repeat(200)}}]}`) as unknown;
    expect(nestsDeeperThan(deep, 128)).toBe(true);
    expect(nestsDeeperThan(deep, 203)).toBe(false);
  });

  it('reads an own __proto__ key like any other', () => {
    expect(nestsDeeperThan(JSON.parse('{"__proto__":{"a":{}}}'), 2)).toBe(true);
  });
});
