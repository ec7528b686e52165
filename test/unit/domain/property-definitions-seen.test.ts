import { forEachPropertySeenIn } from '../../../functions/shared/domain/property-definitions';

const seen = (eventName: string, properties: Record<string, unknown>): [string, string, unknown][] => {
  const found: [string, string, unknown][] = [];
  forEachPropertySeenIn(eventName, properties, (kind, name, value) => found.push([kind, name, value]));
  return found;
};

describe('the properties an event defines', () => {
  it('are its own in order, then its $set and $set_once keys as person properties', () => {
    const properties = JSON.parse(
      '{"b": 1, "$set": {"email": "a@example.com"}, "__proto__": "own", "$groups": {"company": "x"}, "$set_once": {"first": true}, "a": null}',
    ) as Record<string, unknown>;
    expect(seen('signup', properties)).toEqual([
      ['event', 'b', 1],
      ['event', '__proto__', 'own'],
      ['event', 'a', null],
      ['person', 'email', 'a@example.com'],
      ['person', 'first', true],
    ]);
  });

  it('skip names too long for a definition, a $set that is not an object, and $groupidentify', () => {
    const long = 'n'.repeat(401);
    expect(seen('e', { [long]: 1, ok: 2, $set: ['x'], $set_once: { [long]: 3 } })).toEqual([
      ['event', 'ok', 2],
    ]);
    expect(seen('$groupidentify', { plan: 'pro', $set: { a: 1 } })).toEqual([]);
  });
});
