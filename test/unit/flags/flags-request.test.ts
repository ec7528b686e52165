import { flagsRequestOf } from '../../../functions/flags/flags-request';
import { HttpError } from '../../../functions/shared/http/errors';

describe('flagsRequestOf: what a /decide or /flags body asks', () => {
  it('reads posthog-js’s body', () => {
    // Act
    const request = flagsRequestOf({
      token: 'phc_x',
      distinct_id: 'browser-user-1',
      groups: { company: 'acme' },
      $anon_distinct_id: 'anon-1',
      person_properties: { email: 'b@example.com' },
      group_properties: { company: { name: 'Acme Inc' }, broken: 'x' },
      $device_id: 'device-1',
      flag_keys: ['a'],
    });

    // Assess
    expect(request).toEqual({
      distinctId: 'browser-user-1',
      anonDistinctId: 'anon-1',
      deviceId: 'device-1',
      personProperties: { email: 'b@example.com' },
      groups: { company: 'acme' },
      groupProperties: { company: { name: 'Acme Inc' } },
      disableFlags: false,
      flagKeys: ['a'],
    });
  });

  it('prefers posthog-node’s flag_keys_to_evaluate, and ignores fields of the wrong type', () => {
    // Act
    const request = flagsRequestOf({
      distinct_id: 42,
      person_properties: ['not', 'an', 'object'],
      groups: 'acme',
      flag_keys_to_evaluate: ['b', 7],
      flag_keys: ['a'],
    });

    // Assess
    expect(request).toMatchObject({
      distinctId: '42',
      personProperties: {},
      groups: {},
      flagKeys: ['b'],
      anonDistinctId: undefined,
    });
  });

  it.each([[{}], [{ distinct_id: null }], [{ distinct_id: '' }], ['not an object']])(
    'refuses %p with 400 missing_distinct_id',
    (payload) => {
      // Act
      const read = () => flagsRequestOf(payload);

      // Assess
      expect(read).toThrow(HttpError);
      expect(read).toThrow('Decide requires a distinct_id.');
    },
  );

  it('needs no distinct id when flags are disabled', () => {
    // Act
    const request = flagsRequestOf({ disable_flags: true });

    // Assess
    expect(request).toMatchObject({ disableFlags: true, distinctId: '' });
  });

  it('cuts distinct ids to 200 characters, as capture does', () => {
    const long = 'd'.repeat(5_000);
    const request = flagsRequestOf({
      distinct_id: long,
      $anon_distinct_id: `a${long}`,
      $device_id: { id: long },
    });
    expect(request.distinctId).toBe('d'.repeat(200));
    expect(request.anonDistinctId).toBe(`a${'d'.repeat(199)}`);
    expect(request.deviceId).toHaveLength(200);
  });
});
