import * as z from 'zod';

/**
 * The named schemas of the OpenAPI document (`components.schemas`), registered where they are
 * defined. A registry of our own rather than zod's global one, so that only the API's shapes are
 * published, under the names given here.
 *
 * Every schema declared at the top of a module here is marked `/* @__PURE__ *\/`: esbuild leaves a
 * schema that a function's bundle never uses out of it, so its cold start does not build it (a function
 * importing one request schema of a module does not build the module's response schemas, which only
 * the OpenAPI document reads). The mark holds when the chain's last call takes no calls as arguments
 * (`.register(components, { id })`, `.describe('…')`); the schema function's bundle, which uses every
 * schema, serves the same document (test/unit/bundles/unused-schemas.test.ts).
 */
export const components = z.registry<{ id: string; description?: string }>();
