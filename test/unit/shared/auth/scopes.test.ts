import { grants, isKeyScope, missingScope } from '../../../../functions/shared/auth/scopes';

describe('isKeyScope', () => {
  it.each(['*', 'feature_flag:read', 'cohort:write', 'personal_api_key:write', 'insight:read'])(
    'accepts %j',
    (scope) => expect(isKeyScope(scope)).toBe(true),
  );

  it.each(['', '**', 'feature_flag', 'feature_flag:admin', 'nothing:read', 'cohort:read:x', 'Cohort:read'])(
    'refuses %j',
    (scope) => expect(isKeyScope(scope)).toBe(false),
  );

  it('refuses names inherited from Object.prototype', () => {
    expect(isKeyScope('constructor:read')).toBe(false);
    expect(isKeyScope('__proto__:write')).toBe(false);
  });
});

describe('grants', () => {
  it('grants everything to `*`, `*` itself included', () => {
    expect(grants(['*'], 'feature_flag:write')).toBe(true);
    expect(grants(['*'], '*')).toBe(true);
  });

  it('grants :read to :write, never :write to :read', () => {
    expect(grants(['cohort:write'], 'cohort:read')).toBe(true);
    expect(grants(['cohort:read'], 'cohort:write')).toBe(false);
  });

  it('grants nothing of another object, and never `*` to a scoped key', () => {
    expect(grants(['cohort:write'], 'person:read')).toBe(false);
    expect(grants(['cohort:write', 'person:write'], '*')).toBe(false);
  });
});

describe('missingScope', () => {
  it('names the first required scope the key lacks', () => {
    expect(missingScope(['cohort:read'], ['cohort:read', 'person:read'])).toBe('person:read');
    expect(missingScope(['cohort:write', 'person:read'], ['cohort:read', 'person:read'])).toBeUndefined();
  });
});
