import type { BusboyInstance } from '@fastify/busboy';
import { Busboy } from '@fastify/busboy';
import { maxRequestBodyBytes } from '../shared/http/body-limits';
import { ValidationError, validationErrorFromZod } from '../shared/http/errors';
import { parseBody } from '../shared/http/private-route';
import { bodyBytes, header } from '../shared/http/request';
import type { HttpEvent } from '../shared/http/types';
import type { CohortWrite } from '../shared/schemas/cohort';
import { cohortWriteSchema } from '../shared/schemas/cohort';

/**
 * A cohort write as JSON, or as the multipart form PostHog's UI sends for static cohorts: text
 * fields (`name`, `is_static`, `groups`/`filters` as JSON text…) and a `csv` file field. Parsed with
 * @fastify/busboy (bounded field count and sizes), then validated with the JSON body's schema.
 */
export interface CohortWriteRequest {
  readonly fields: CohortWrite;
  readonly csv?: Buffer;
}

const limits = { fields: 20, fieldSize: 100_000, files: 1, fileSize: maxRequestBodyBytes, parts: 25 };

function multipartParts(
  event: HttpEvent,
  contentType: string,
): Promise<{ fields: Record<string, string>; csv?: Buffer }> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let csv: Buffer | undefined;
    let failed: Error | undefined;
    const fail = (detail: string) => {
      failed ??= new ValidationError('parse_error', `Multipart form parse error - ${detail}`);
    };
    let parser: BusboyInstance;
    try {
      parser = new Busboy({ headers: { 'content-type': contentType }, limits });
    } catch (error) {
      reject(new ValidationError('parse_error', `Multipart form parse error - ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(`field ${name.slice(0, 50)} is too long.`);
      else if (Object.hasOwn(fields, name) || name === '__proto__')
        fail(`field ${name.slice(0, 50)} is repeated.`);
      else fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail('the file is too large.'));
      stream.on('end', () => {
        if (name === 'csv') csv = Buffer.concat(chunks);
      });
    });
    parser.on('partsLimit', () => fail('too many parts.'));
    parser.on('fieldsLimit', () => fail('too many fields.'));
    parser.on('filesLimit', () => fail('only one file may be sent.'));
    parser.on('error', (error: Error) => fail(error.message));
    parser.on('finish', () => (failed ? reject(failed) : resolve({ fields, ...(csv ? { csv } : {}) })));
    parser.end(bodyBytes(event));
  });
}

const booleanText = (value: string): boolean | string => {
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  return value;
};

function jsonField(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new ValidationError('parse_error', `${name} is not valid JSON.`, name);
  }
}

export async function cohortWriteOf(event: HttpEvent): Promise<CohortWriteRequest> {
  const contentType = header(event, 'content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) return { fields: parseBody(event, cohortWriteSchema) };
  const { fields, csv } = await multipartParts(event, contentType);
  const raw: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'groups' || name === 'filters') raw[name] = jsonField(name, value);
    else if (name === 'is_static' || name === 'deleted') raw[name] = booleanText(value);
    else raw[name] = value;
  }
  const parsed = cohortWriteSchema.safeParse(raw);
  if (!parsed.success) throw validationErrorFromZod(parsed.error);
  return { fields: parsed.data, ...(csv ? { csv } : {}) };
}
