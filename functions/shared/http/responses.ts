import type { HttpResult } from './types';

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export function noContent(statusCode = 204, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers, body: '' };
}
