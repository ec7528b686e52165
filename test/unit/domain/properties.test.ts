import {
  applyPropertyUpdates,
  applyTimedPropertyUpdates,
  changedBeyondRefresh,
  copyOf,
  mergeTopLevelSets,
  processesPerson,
  propertyUpdatesOf,
  withInitialAndUtmProperties,
} from '../../../functions/shared/domain/properties';

describe('top-level $set / $set_once', () => {
  it('merges them into the properties’ own, the top-level keys winning', () => {
    const merged = mergeTopLevelSets(
      { $set: { email: 'top@example.com' }, $set_once: { first: 'top' } },
      { $set: { email: 'inner@example.com', name: 'Ada' }, plan: 'pro' },
    );
    expect(merged).toEqual({
      $set: { email: 'top@example.com', name: 'Ada' },
      $set_once: { first: 'top' },
      plan: 'pro',
    });
  });

  it('ignores a top-level $set that is not an object', () => {
    expect(mergeTopLevelSets({ $set: 'nope' }, { plan: 'pro' })).toEqual({ plan: 'pro' });
  });

  it('copies the properties as a spread does: keys in order, __proto__ a key, the event’s own left unchanged', () => {
    const properties = JSON.parse('{"b": 1, "__proto__": {"polluted": true}, "a": 2}') as Record<
      string,
      unknown
    >;
    const merged = mergeTopLevelSets({}, properties);
    merged.$ip = '127.0.0.1';
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(['b', '__proto__', 'a', '$ip']);
    expect(Object.keys(properties)).toEqual(['b', '__proto__', 'a']);
    const plain = { z: 1, y: 2 };
    expect(Object.keys(mergeTopLevelSets({ $set: { x: 1 } }, plain))).toEqual(['z', 'y', '$set']);
    expect(plain).toEqual({ z: 1, y: 2 });
  });
});

describe('copyOf', () => {
  it('copies as a spread does: own keys in order, a string by index, nothing of null or a number', () => {
    const value = { b: 1, a: { nested: true }, c: null };
    const copy = copyOf(value);
    expect(copy).not.toBe(value);
    expect(Object.entries(copy)).toEqual(Object.entries(value));
    expect(copy['a']).toBe(value.a);
    expect(copyOf('ab')).toEqual({ 0: 'a', 1: 'b' });
    expect([copyOf(null), copyOf(undefined), copyOf(5)]).toEqual([{}, {}, {}]);
  });

  it('keeps a key named __proto__ as a key, not as the copy’s prototype', () => {
    const copy = copyOf(JSON.parse('{"x": 1, "__proto__": {"polluted": true}}'));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['x', '__proto__']);
  });
});

describe('initial and UTM person properties', () => {
  it('copies campaign parameters into $set and, with browser properties, into $set_once as $initial_*', () => {
    const properties = withInitialAndUtmProperties('$pageview', {
      utm_source: 'newsletter',
      gclid: 'g-1',
      $browser: 'Chrome',
      $current_url: 'https://example.com/',
      $referring_domain: 'google.com',
      $pathname: '/',
      plan: 'pro',
    });
    expect(properties.$set).toEqual({ utm_source: 'newsletter', gclid: 'g-1' });
    expect(properties.$set_once).toEqual({
      $initial_utm_source: 'newsletter',
      $initial_gclid: 'g-1',
      $initial_browser: 'Chrome',
      $initial_current_url: 'https://example.com/',
      $initial_referring_domain: 'google.com',
    });
    expect(properties.plan).toBe('pro');
  });

  it('lets the copied values win over the same keys in the SDK’s own $set and $set_once, as PostHog does', () => {
    const properties = withInitialAndUtmProperties('$pageview', {
      utm_source: 'ads',
      $os: 'Linux',
      $set: { utm_source: 'sdk', email: 'a@example.com' },
      $set_once: { $initial_os: 'sdk', signup: '2024-01-01' },
    });
    expect(properties.$set).toEqual({ utm_source: 'ads', email: 'a@example.com' });
    expect(properties.$set_once).toEqual({
      $initial_os: 'Linux',
      $initial_utm_source: 'ads',
      signup: '2024-01-01',
    });
  });

  it('names every copied property as PostHog does', () => {
    const properties = withInitialAndUtmProperties('$pageview', {
      utm_medium: 'm',
      utm_campaign: 'c',
      utm_content: 'co',
      utm_term: 't',
      $browser_version: 131,
      $device_type: 'Desktop',
      $os: 'Mac OS X',
      $referrer: 'https://www.google.com/',
      $initial_os: 'not a parameter',
    });
    expect(properties.$set).toEqual({ utm_medium: 'm', utm_campaign: 'c', utm_content: 'co', utm_term: 't' });
    expect(Object.entries(properties.$set_once as object)).toEqual([
      ['$initial_utm_medium', 'm'],
      ['$initial_utm_campaign', 'c'],
      ['$initial_utm_content', 'co'],
      ['$initial_utm_term', 't'],
      ['$initial_browser_version', 131],
      ['$initial_device_type', 'Desktop'],
      ['$initial_os', 'Mac OS X'],
      ['$initial_referrer', 'https://www.google.com/'],
    ]);
  });

  it('adds nothing to an event without such properties', () => {
    expect(withInitialAndUtmProperties('signup', { plan: 'pro' })).toEqual({ plan: 'pro' });
  });

  it('leaves $snapshot and $performance_event alone', () => {
    expect(withInitialAndUtmProperties('$snapshot', { $browser: 'Chrome' })).toEqual({ $browser: 'Chrome' });
    expect(withInitialAndUtmProperties('$performance_event', { utm_source: 'x' })).toEqual({
      utm_source: 'x',
    });
  });
});

describe('person property updates', () => {
  it('applies $set_once, then $set, then $unset', () => {
    const updates = propertyUpdatesOf({
      $set_once: { a: 'once', b: 'once' },
      $set: { b: 'set', c: 'set' },
      $unset: ['c'],
    });
    expect(applyPropertyUpdates({ a: 'kept' }, updates)).toEqual({
      properties: { a: 'kept', b: 'set' },
      changed: true,
    });
  });

  it('sets a $set_once key only when the person lacks it', () => {
    const updates = propertyUpdatesOf({ $set_once: { plan: 'free' } });
    expect(applyPropertyUpdates({ plan: 'pro' }, updates)).toEqual({
      properties: { plan: 'pro' },
      changed: false,
    });
    expect(applyPropertyUpdates({}, updates)).toEqual({ properties: { plan: 'free' }, changed: true });
  });

  it('accepts $unset as an object whose keys are removed', () => {
    const updates = propertyUpdatesOf({ $unset: { email: null } });
    expect(applyPropertyUpdates({ email: 'a@example.com', name: 'Ada' }, updates).properties).toEqual({
      name: 'Ada',
    });
  });

  it('reports no change when applying the same updates to their own result', () => {
    const updates = propertyUpdatesOf({
      $set: { tags: ['a', 'b'], n: 1 },
      $set_once: { first: 1 },
      $unset: ['gone'],
    });
    const once = applyPropertyUpdates({ gone: true }, updates);
    expect(once.changed).toBe(true);
    expect(applyPropertyUpdates(once.properties, updates)).toEqual({
      properties: once.properties,
      changed: false,
    });
  });

  it('stores a key named __proto__ as an ordinary property', () => {
    const updates = propertyUpdatesOf(
      JSON.parse('{"$set": {"__proto__": {"polluted": true}}}') as Record<string, unknown>,
    );
    const { properties } = applyPropertyUpdates({}, updates);
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(properties)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('ignores keys set to undefined, as the stored event (JSON) has them not at all', () => {
    // GeoIP assigns undefined to the fields its database lacks ($initial_geoip_accuracy_radius).
    const event = {
      $set: { city: 'Sydney', radius: undefined },
      $set_once: { first: 'Sydney', r: undefined },
    };
    expect(propertyUpdatesOf(event)).toEqual({
      set: { city: 'Sydney' },
      setOnce: { first: 'Sydney' },
      unset: [],
    });
    const empty = { properties: {}, propertyStamps: {}, unsetTimes: {} };
    const stored = JSON.parse(
      JSON.stringify(applyTimedPropertyUpdates(empty, propertyUpdatesOf(event), 1_000)),
    ) as typeof empty;
    // The same event again later is a refresh, not a change: no person write for it.
    const again = applyTimedPropertyUpdates(stored, propertyUpdatesOf(event), 2_000);
    expect(changedBeyondRefresh(stored, again)).toBe(false);
  });

  it('ignores $set and $set_once that are not objects', () => {
    expect(propertyUpdatesOf({ $set: 'x', $set_once: [1], $unset: 'y' })).toEqual({
      set: {},
      setOnce: {},
      unset: [],
    });
  });
});

describe('$process_person_profile', () => {
  it('skips person processing only when it is false', () => {
    expect(processesPerson({ $process_person_profile: false })).toBe(false);
    expect(processesPerson({ $process_person_profile: true })).toBe(true);
    expect(processesPerson({})).toBe(true);
  });
});
