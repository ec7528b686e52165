import type { BusboyInstance } from '@fastify/busboy';
import { Busboy } from '@fastify/busboy';
import { maxRequestBodyBytes } from './body-limits';
import { ValidationError } from './errors';
import { maxJsonDepth, nestsDeeperThan } from './json-depth';
import { bodyBytes, header } from './request';
import type { HttpEvent } from './types';

/**
 * `multipart/form-data` bodies, as PostHog's UI sends them for cohorts (a `csv` file) and plugin
 * configs (`config` as a JSON text field): parsed with @fastify/busboy, with bounded field counts and
 * sizes; any malformed part is a 400 `parse_error`, as DRF's MultiPartParser answers.
 */
export interface MultipartForm {
  readonly fields: Record<string, string>;
  /** The file parts, by field name. */
  readonly files: ReadonlyMap<string, Buffer>;
}

const limits = { fields: 20, fieldSize: 100_000, files: 1, fileSize: maxRequestBodyBytes, parts: 25 };

/** Whether the request declares a multipart body. */
export function isMultipart(event: HttpEvent): boolean {
  return /^multipart\/form-data/i.test(header(event, 'content-type') ?? '');
}

export function multipartForm(event: HttpEvent): Promise<MultipartForm> {
  const contentType = header(event, 'content-type') ?? '';
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files = new Map<string, Buffer>();
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
      stream.on('end', () => files.set(name, Buffer.concat(chunks)));
    });
    parser.on('partsLimit', () => fail('too many parts.'));
    parser.on('fieldsLimit', () => fail('too many fields.'));
    parser.on('filesLimit', () => fail('only one file may be sent.'));
    parser.on('error', (error: Error) => fail(error.message));
    parser.on('finish', () => (failed ? reject(failed) : resolve({ fields, files })));
    parser.end(bodyBytes(event));
  });
}

/** A form's boolean text as DRF's BooleanField reads it; anything else is left for validation to refuse. */
export function booleanText(value: string): boolean | string {
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  return value;
}

/**
 * A form field holding JSON text; 400 `parse_error` naming it if it is not JSON or nests deeper than
 * a JSON body may (`maxJsonDepth`): the same document must not get further as a form field.
 */
export function jsonField(name: string, value: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ValidationError('parse_error', `${name} is not valid JSON.`, name);
  }
  if (nestsDeeperThan(parsed, maxJsonDepth))
    throw new ValidationError('parse_error', `${name} nests deeper than ${maxJsonDepth} levels.`, name);
  return parsed;
}
