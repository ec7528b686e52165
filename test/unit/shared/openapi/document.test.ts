import { canonicalPath, isPrivateRoute, routes } from '../../../../functions/routes';
import { openApiDocument } from '../../../../functions/shared/openapi/document';
import { operations } from '../../../../functions/shared/openapi/operations';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const document: Json = openApiDocument('https://api.example.com');

/** Every `$ref` anywhere in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner),
    );
  return [];
}

/**
 * Groups whose every route the document must describe. A group joins this list when its operations
 * are added to `functions/shared/openapi/operations.ts` (the events list is documented already; the
 * rest of that group is still being written).
 */
const documentedGroups = new Set([
  'projects',
  'users',
  'personal_api_keys',
  'event_definitions',
  'schema',
  'events',
]);

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with the request’s server and bearer personal API key security', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: 'https://api.example.com' }]);
    expect(document.components.securitySchemes.PersonalAPIKeyAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(document.security).toEqual([{ PersonalAPIKeyAuth: [] }]);
  });

  it('documents only operations that are rows of the route table', () => {
    const served = new Set(routes.map((route) => `${route.method} ${canonicalPath(route)}`));
    for (const operation of operations) expect(served).toContain(`${operation.method} ${operation.path}`);
  });

  it('documents every route of its groups', () => {
    const documented = new Set(operations.map((operation) => `${operation.method} ${operation.path}`));
    for (const route of routes.filter((row) => documentedGroups.has(row.group)))
      expect(documented).toContain(`${route.method} ${canonicalPath(route)}`);
  });

  it('marks exactly the public routes as needing no credentials', () => {
    for (const operation of operations) {
      const route = routes.find(
        (row) => row.method === operation.method && canonicalPath(row) === operation.path,
      )!;
      expect({ path: operation.path, public: operation.public ?? false }).toEqual({
        path: operation.path,
        public: !isPrivateRoute(route),
      });
      const documented = document.paths[operation.path][operation.method.toLowerCase()];
      if (operation.public) expect(documented.security).toEqual([]);
      else expect(documented.responses['401']).toBeDefined();
    }
  });

  it('resolves every $ref to a component schema', () => {
    const schemas = document.components.schemas as Json;
    for (const ref of refsIn(document)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
    }
  });

  it('publishes the response shapes generated from the zod schemas, field by field', () => {
    const project = document.components.schemas.Project as Json;
    expect(Object.keys(project.properties)).toContain('effective_membership_level');
    expect(project.additionalProperties).toBe(false);
    expect(project.properties.timezone).toEqual({ $ref: '#/components/schemas/Timezone' });
    expect(document.components.schemas.Timezone.enum).toHaveLength(439);
    expect(document.components.schemas.EventDefinition.required).toContain('volume_30_day');
  });

  it('lets request bodies carry unknown fields, as the API ignores them', () => {
    expect(document.components.schemas.ProjectWrite.additionalProperties).not.toBe(false);
    expect(document.paths['/api/projects/'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ProjectWrite',
    });
  });

  it('documents path and query parameters, integers as integers', () => {
    const list = document.paths['/api/projects/{project_id}/event_definitions/'].get;
    const names = (list.parameters as Json[]).map((parameter) => `${parameter.in}:${parameter.name}`);
    expect(names).toEqual([
      'path:project_id',
      'query:limit',
      'query:offset',
      'query:search',
      'query:event_type',
    ]);
    expect(list.parameters[1].schema).toEqual({ type: 'integer', minimum: 1 });
  });
});
