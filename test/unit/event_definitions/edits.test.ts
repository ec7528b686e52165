import { editsFor, matchesFilters, normalizeTags } from '../../../functions/event_definitions/edits';

const now = new Date('2026-11-21T19:13:00.000Z');

describe('editsFor (PostHog EnterpriseEventDefinitionSerializer.update)', () => {
  it('records who changed the definition and when, on every PATCH', () => {
    expect(editsFor({}, false, 3, now)).toEqual({ updated_at: now.toISOString(), updated_by_id: 3 });
  });

  it('writes owner, description, tags and post_to_slack as given, tags normalized', () => {
    expect(
      editsFor(
        { owner: null, description: 'Sign-ups', tags: [' Growth', 'growth', ''], post_to_slack: true },
        false,
        3,
        now,
      ),
    ).toEqual({
      owner: null,
      description: 'Sign-ups',
      tags: ['growth'],
      post_to_slack: true,
      updated_at: now.toISOString(),
      updated_by_id: 3,
    });
  });

  it('records the verifier and time when an unverified definition is verified', () => {
    expect(editsFor({ verified: true }, false, 3, now)).toMatchObject({
      verified: true,
      verified_at: now.toISOString(),
      verified_by_id: 3,
    });
  });

  it('keeps the first verifier when a verified definition is verified again', () => {
    const edits = editsFor({ verified: true }, true, 4, now);
    expect(edits).not.toHaveProperty('verified');
    expect(edits).not.toHaveProperty('verified_at');
    expect(edits).not.toHaveProperty('verified_by_id');
  });

  it('clears verifier and time when a definition is unverified', () => {
    expect(editsFor({ verified: false }, true, 3, now)).toMatchObject({
      verified: false,
      verified_at: null,
      verified_by_id: null,
    });
  });
});

describe('normalizeTags', () => {
  it('trims, lower-cases and de-duplicates, keeping first occurrences in order', () => {
    expect(normalizeTags(['B', 'a ', ' b', '  '])).toEqual(['b', 'a']);
  });
});

describe('matchesFilters', () => {
  it('matches every search word anywhere in the name, case-insensitively', () => {
    expect(matchesFilters('Signed Up Today', { search: 'up sign' })).toBe(true);
    expect(matchesFilters('Signed Up Today', { search: 'down' })).toBe(false);
    expect(matchesFilters('anything', { search: '  ' })).toBe(true);
  });

  it('separates custom events from PostHog ones by the leading $', () => {
    expect(matchesFilters('$pageview', { event_type: 'event_posthog' })).toBe(true);
    expect(matchesFilters('$pageview', { event_type: 'event_custom' })).toBe(false);
    expect(matchesFilters('signup', { event_type: 'event_custom' })).toBe(true);
    expect(matchesFilters('signup', { event_type: 'event' })).toBe(true);
  });
});
