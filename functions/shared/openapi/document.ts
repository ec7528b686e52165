import * as z from 'zod';
import type { Operation } from '../../routes';
import { operations, operationScopes } from '../../routes';
import { errorBodySchema } from '../schemas/common';
import { components } from '../schemas/registry';
import type { OperationDoc } from './operations';
import { operationDocs } from './operations';

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
function componentSchemas(docs: readonly OperationDoc[]): Record<string, JsonSchema> {
  const requestIds = new Set(
    docs.flatMap((operation) => {
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

function parametersOf(operation: Operation, doc: OperationDoc): JsonSchema[] {
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
  const queryParameters = Object.entries(doc.query?.shape ?? {}).map(([name, field]) => {
    const schema = field as z.ZodType;
    // Query values are strings on the wire; what they must parse to (the output) is what to document,
    // unless a transform makes that indescribable (a time, a JSON list): then what is sent.
    const asJsonSchema = (io: 'input' | 'output') =>
      tidy(z.toJSONSchema(schema, { io, unrepresentable: 'any', override }));
    const output = asJsonSchema('output');
    const { description, ...jsonSchema } =
      'type' in output || 'enum' in output ? output : asJsonSchema('input');
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

function operationObject(operation: Operation, doc: OperationDoc): JsonSchema {
  const { response } = doc;
  const scopes = operationScopes(operation);
  const errors = [...new Set([...(scopes ? [401, 403] : []), ...doc.errors, 500])].sort((a, b) => a - b);
  return {
    operationId: operation.id,
    summary: doc.summary,
    tags: [doc.tag],
    security: scopes ? [{ PersonalAPIKeyAuth: scopes }] : [],
    parameters: parametersOf(operation, doc),
    ...(doc.body
      ? {
          requestBody: {
            required: false,
            content: { 'application/json': { schema: jsonSchemaOf(doc.body, 'input') } },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        [response, ...(doc.otherResponses ?? [])].map((answer) => [
          String(answer.status),
          {
            description: answer.description,
            ...(answer.schema
              ? { content: { 'application/json': { schema: jsonSchemaOf(answer.schema, 'output') } } }
              : {}),
          },
        ]),
      ),
      ...Object.fromEntries(errors.map((status) => [String(status), errorResponse(status)])),
    },
  };
}

/** The OpenAPI 3.1 document of the API, served by `/api/schema/` with the request's own URL as server. */
export function openApiDocument(serverUrl: string): JsonSchema {
  return { ...(built ??= buildDocument(operations, operationDocs)), servers: [{ url: serverUrl }] };
}

let built: JsonSchema | undefined;

/**
 * The document of a list of operations (the table's, or a test's), each described by the doc of its
 * id: an operation without one, or a doc of no operation, is a mistake caught here.
 */
export function buildDocument(list: readonly Operation[], docs: readonly OperationDoc[]): JsonSchema {
  const docsById = new Map(docs.map((doc) => [doc.operationId, doc]));
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const operation of list) {
    const doc = docsById.get(operation.id);
    if (!doc) throw new Error(`Operation ${operation.id} has no OpenAPI description`);
    docsById.delete(operation.id);
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(operation, doc);
  }
  const unused = [...docsById.keys()];
  if (unused.length > 0) throw new Error(`OpenAPI descriptions of no operation: ${unused.join(', ')}`);
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
      schemas: componentSchemas(docs),
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
