import { taxonomyPlugin } from '../../../functions/shared/domain/plugins/taxonomy';
import { metaFor, pluginEvent, run } from './fixtures';

const NAMES = [
  'helloThereWorld',
  'HelloThereWorld',
  'hello_there_world',
  'hello-there-world',
  'hello there world',
];

const renamed = async (name: string, convention: string) =>
  (
    await run(
      taxonomyPlugin,
      pluginEvent({ event: name }),
      metaFor(taxonomyPlugin, { defaultNamingConvention: convention }),
    )
  )?.event;

describe('Taxonomy Standardizer plugin', () => {
  it.each([
    ['camelCase', 'helloThereWorld'],
    ['PascalCase', 'HelloThereWorld'],
    ['snake_case', 'hello_there_world'],
    ['kebab-case', 'hello-there-world'],
    ['spaces in between', 'hello there world'],
  ])('renames every convention to %s (PostHog test)', async (convention, expected) => {
    for (const name of NAMES) expect(await renamed(name, convention)).toBe(expected);
  });

  it("leaves PostHog's $ events and survey events alone", async () => {
    expect(await renamed('$pageview', 'PascalCase')).toBe('$pageview');
    expect(await renamed('$feature_flag_called', 'camelCase')).toBe('$feature_flag_called');
    expect(await renamed('survey shown', 'camelCase')).toBe('survey shown');
    expect(await renamed('survey sent', 'snake_case')).toBe('survey sent');
  });

  it('leaves a name that shows no other convention as it is', async () => {
    expect(await renamed('signup', 'PascalCase')).toBe('signup');
    expect(await renamed('signup', 'snake_case')).toBe('signup');
  });

  it('converts from the first convention found only, as the plugin does', async () => {
    // Capitals are found first, so only they are converted; the underscore stays.
    expect(await renamed('User_signedUp', 'snake_case')).toBe('user_signed_up');
    expect(await renamed('user_signedUp', 'kebab-case')).toBe('user_signed-up');
  });

  it('refuses an unknown convention at setup', () => {
    expect(() => taxonomyPlugin.setup({ defaultNamingConvention: 'SCREAMING' })).toThrow(
      'Unknown naming convention',
    );
  });
});
