import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import redos from 'eslint-plugin-redos';

export default tseslint.config(
  { ignores: ['node_modules', 'cdk.out', '.flock', 'coverage', '*.config.js', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/require-await': 'off',
      'no-console': ['error', { allow: ['warn', 'error'] }],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z']",
          message:
            "Use `import * as z from 'zod'`: the named `z` defeats tree shaking and bundles all of zod's locales (+350 KB per function).",
        },
      ],
    },
  },
  {
    // Every regex literal is checked by recheck (a ReDoS detector: automaton analysis plus fuzzing)
    // for super-linear backtracking: a pattern run over request or stored data must take time linear
    // in its input, or one crafted body holds a function for its whole timeout. User-authored patterns
    // never reach the JavaScript engine: they run on RE2 (functions/shared/domain/regex.ts).
    // Tests are left out: their patterns run on fixed data (and the differential test of
    // domain/elements.ts keeps PostHog's vulnerable originals as its oracle).
    files: ['functions/**', 'lib/**', 'bin/**', 'bench/**'],
    plugins: { redos },
    rules: { 'redos/no-vulnerable': ['error', { ignoreErrors: false, timeout: 10000 }] },
  },
  {
    // bin/ and bench/ are command-line programs: printing is their job.
    files: ['bin/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Plain CommonJS files that tools load by path (the jest transformer): no type information.
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
