import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Operation } from '../../../../functions/routes';
import {
  canonicalPath,
  isPrivateRoute,
  operations,
  operationScopes,
  routes,
} from '../../../../functions/routes';
import { buildDocument, openApiDocument } from '../../../../functions/shared/openapi/document';
import { operationDocs } from '../../../../functions/shared/openapi/operations';
import { serializeFeatureFlag } from '../../../../functions/feature_flags/serialize';
import type { FeatureFlagRecord } from '../../../../functions/shared/db/feature-flags';
import { featureFlagSchema } from '../../../../functions/shared/schemas/feature-flag';

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

  it('documents every operation of the table, at its path and method, under its id', () => {
    const documented = Object.entries(document.paths as Json).flatMap(([path, methods]) =>
      Object.entries(methods as Json).map(
        ([method, operation]) => `${method} ${path} ${operation.operationId}`,
      ),
    );
    expect(documented.sort()).toEqual(
      operations
        .map((operation) => `${operation.method.toLowerCase()} ${operation.path} ${operation.id}`)
        .sort(),
    );
  });

  it('refuses an operation without a description, and a description of no operation', () => {
    const extra: Operation = { id: 'extra_list', group: 'events', method: 'GET', path: '/api/extra/' };
    expect(() => buildDocument([...operations, extra], operationDocs)).toThrow(
      'Operation extra_list has no OpenAPI description',
    );
    expect(() => buildDocument(operations.slice(1), operationDocs)).toThrow(
      `OpenAPI descriptions of no operation: ${operations[0]!.id}`,
    );
  });

  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator, its own CLI: the package is ESM-only)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flock-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
      const run = spawnSync(process.execPath, [cli, file], { encoding: 'utf8' });
      expect({ status: run.status, output: `${run.stdout}${run.stderr}` }).toMatchObject({ status: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('documents the flags API with the schema of what it answers', () => {
    const record = {
      id: 1,
      key: 'beta',
      name: 'Beta',
      filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
      deleted: false,
      active: true,
      created_by: null,
      created_at: '2026-11-24T00:00:00.000Z',
      updated_at: null,
      version: 1,
      ensure_experience_continuity: false,
      is_remote_configuration: false,
    } as unknown as FeatureFlagRecord;
    expect(featureFlagSchema.safeParse(serializeFeatureFlag(record)).error).toBeUndefined();
  });

  it('marks exactly the public routes as needing no credentials', () => {
    // Outside /api/ but served to a personal API key (the server SDKs' local evaluation).
    const personalKeyPaths = new Set(['/flags/definitions/']);
    for (const operation of operations) {
      const route = routes.find((row) => row.operation === operation)!;
      const isPublic = operationScopes(operation) === undefined;
      expect({ path: operation.path, public: isPublic }).toEqual({
        path: operation.path,
        public: !isPrivateRoute(route) && !personalKeyPaths.has(canonicalPath(route)),
      });
      const documented = document.paths[operation.path][operation.method.toLowerCase()];
      if (isPublic) expect(documented.security).toEqual([]);
      else expect(documented.responses['401']).toBeDefined();
    }
  });

  it("lists each private operation's scopes in its security requirement, from the route table", () => {
    for (const operation of operations.filter((candidate) => candidate.scope !== undefined)) {
      const documented = document.paths[operation.path][operation.method.toLowerCase()];
      const route = routes.find((row) => row.operation === operation)!;
      expect(documented.security).toEqual([{ PersonalAPIKeyAuth: route.scopes }]);
      expect(route.scopes?.length).toBeGreaterThan(0);
      expect(documented.responses['403'].description).toContain('API key missing required scope');
    }
    expect(document.paths['/api/projects/{project_id}/feature_flags/'].post.security).toEqual([
      { PersonalAPIKeyAuth: ['feature_flag:write'] },
    ]);
    expect(document.paths['/api/projects/{project_id}/cohorts/{id}/persons/'].get.security).toEqual([
      { PersonalAPIKeyAuth: ['cohort:read', 'person:read'] },
    ]);
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

  it('documents the query each handler parses with: what it refuses, the document does not allow', () => {
    const queryOf = (id: string) => operationDocs.find((doc) => doc.operationId === id)!.query!;
    expect(queryOf('events_list').safeParse({ limit: 'ten' }).success).toBe(false);
    expect(queryOf('events_list').safeParse({ orderBy: '["event"]' }).success).toBe(false);
    expect(queryOf('events_values').safeParse({ key: '' }).success).toBe(false);
    expect(queryOf('plugin_configs_logs_list').safeParse({ type_filter: 'FATAL' }).success).toBe(false);
    expect(queryOf('plugin_configs_logs_list').safeParse({ after: 'yesterday' }).success).toBe(false);
    const parameter = (path: string, name: string): unknown =>
      (document.paths[path].get.parameters as Json[]).find((candidate) => candidate.name === name)!.schema;
    expect(parameter('/api/projects/{project_id}/events/', 'limit')).toEqual({ type: 'integer', minimum: 1 });
    expect(parameter('/api/projects/{project_id}/plugin_configs/{id}/logs/', 'offset')).toEqual({
      type: 'integer',
      minimum: 0,
    });
    // A transformed value is documented as what is sent.
    expect(parameter('/api/projects/{project_id}/events/', 'after')).toEqual({ type: 'string' });
  });
});
