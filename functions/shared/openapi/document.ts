import * as z from 'zod';
import { canonicalPath, routes } from '../../routes';
import type { RequiredScope } from '../auth/scopes';
import { errorBodySchema } from '../schemas/common';
import { components } from '../schemas/registry';
import type { Operation } from './operations';
import { operations } from './operations';

type JsonSchema = Record<string, unknown>;

const componentRef = (id: string) => `#/components/schemas/${id}`;

/** A JSON Schema from zod without what OpenAPI components do not want (`$schema`, `$id`). */
function tidy(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/** Formats that say all a reader needs: zod's regular expression for them is noise in a document. */
const selfDescribingFormats = new Set(['date-time', 'uuid', 'uri', 'email']);

const override = (context: { jsonSchema: JsonSchema }) => {
  const schema = context.jsonSchema;
  if (schema.type === 'integer') {
    if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
    if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  }
  if (typeof schema.format === 'string' && selfDescribingFormats.has(schema.format)) delete schema.pattern;
};

/** One schema as JSON Schema: a `$ref` to the components if it is a named one. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const id = components.get(schema)?.id;
  if (id) return { $ref: componentRef(id) };
  return tidy(
    // Unnamed schemas are small (a query parameter, a free-form object): inlined.
    z.toJSONSchema(schema, { io, unrepresentable: 'any', override }),
  );
}

/**
 * `components.schemas`: every registered schema. Request bodies are converted as inputs (unknown
 * fields allowed: they are ignored, as DRF ignores them), responses as outputs (exactly these fields).
 */
function componentSchemas(): Record<string, JsonSchema> {
  const requestIds = new Set(
    operations.flatMap((operation) => {
      const id = operation.body ? components.get(operation.body)?.id : undefined;
      return id ? [id] : [];
    }),
  );
  const convert = (io: 'input' | 'output') =>
    z.toJSONSchema(components, { io, uri: componentRef, unrepresentable: 'any', override }).schemas as Record<
      string,
      JsonSchema
    >;
  const outputs = convert('output');
  const inputs = convert('input');
  return Object.fromEntries(
    Object.keys(outputs)
      .sort()
      .map((id) => [id, tidy((requestIds.has(id) ? inputs[id] : outputs[id]) ?? {})]),
  );
}

const errorDescriptions: Readonly<Record<number, string>> = {
  400: 'Invalid request: `validation_error` (with `attr` naming the field) or `parse_error`',
  401: 'No personal API key (`not_authenticated`), or an unknown or revoked one (`invalid_personal_api_key`)',
  403: "`permission_denied`: a key without the operation's scopes (`API key missing required scope '…'`), another organization's project, or an insufficient membership level",
  404: '`not_found`: no such object in this scope (`Project not found.` for an unknown project)',
  405: '`method_not_allowed`',
  415: '`unsupported_media_type`: a body that is not `application/json`',
  500: 'A server error occurred.',
};

const errorResponse = (status: number) => ({
  description: errorDescriptions[status] ?? 'Error',
  content: { 'application/json': { schema: jsonSchemaOf(errorBodySchema, 'output') } },
});

function parametersOf(operation: Operation): JsonSchema[] {
  const pathParameters = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description:
      name === 'project_id'
        ? 'A project id, or `@current` for the current project'
        : name === 'user_uuid'
          ? "`@me` (or the caller's own uuid)"
          : undefined,
  }));
  const queryParameters = Object.entries(operation.query?.shape ?? {}).map(([name, field]) => {
    const schema = field as z.ZodType;
    // Query values are strings on the wire; what they must parse to (the output) is what to document.
    const { description, ...jsonSchema } = tidy(
      z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', override }),
    );
    return {
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      ...(typeof description === 'string' ? { description } : {}),
      schema: jsonSchema,
    };
  });
  return [...pathParameters, ...queryParameters];
}

/**
 * The scopes a personal API key needs for an operation, from its row of the route table (the one
 * place they are declared): OpenAPI's security requirement lists them, as PostHog's schema does.
 */
function scopesOf(operation: Operation): readonly RequiredScope[] {
  const route = routes.find(
    (row) => row.method === operation.method && canonicalPath(row) === operation.path,
  );
  if (!route?.scopes) throw new Error(`${operation.method} ${operation.path} declares no scopes`);
  return route.scopes;
}

function operationObject(operation: Operation): JsonSchema {
  const { response } = operation;
  const errors = [...new Set([...(operation.public ? [] : [401, 403]), ...operation.errors, 500])].sort(
    (a, b) => a - b,
  );
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: [operation.tag],
    security: operation.public ? [] : [{ PersonalAPIKeyAuth: scopesOf(operation) }],
    parameters: parametersOf(operation),
    ...(operation.body
      ? {
          requestBody: {
            required: false,
            content: { 'application/json': { schema: jsonSchemaOf(operation.body, 'input') } },
          },
        }
      : {}),
    responses: {
      [String(response.status)]: {
        description: response.description,
        ...(response.schema
          ? { content: { 'application/json': { schema: jsonSchemaOf(response.schema, 'output') } } }
          : {}),
      },
      ...Object.fromEntries(errors.map((status) => [String(status), errorResponse(status)])),
    },
  };
}

/** The OpenAPI 3.1 document of the API, served by `/api/schema/` with the request's own URL as server. */
export function openApiDocument(serverUrl: string): JsonSchema {
  return { ...(built ??= buildDocument()), servers: [{ url: serverUrl }] };
}

let built: JsonSchema | undefined;

function buildDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const operation of operations) {
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Flock',
      version: '1.0.0',
      description:
        'A PostHog-compatible analytics backend. The private API authenticates a personal API key ' +
        '(`Authorization: Bearer phx_…`); every error is `{type, code, detail, attr}`.',
    },
    security: [{ PersonalAPIKeyAuth: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        PersonalAPIKeyAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A personal API key (`phx_…`); also accepted as `personal_api_key` in the query or body. ' +
            'Each operation lists the scopes the key needs: `*` grants all, `<object>:write` also grants `<object>:read`; ' +
            "a key without them gets 403 `API key missing required scope '<scope>'`.",
        },
      },
    },
  };
}
