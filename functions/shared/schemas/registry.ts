import * as z from 'zod';

/**
 * The named schemas of the OpenAPI document (`components.schemas`), registered where they are
 * defined. A registry of our own rather than zod's global one, so that only the API's shapes are
 * published, under the names given here.
 */
export const components = z.registry<{ id: string; description?: string }>();
