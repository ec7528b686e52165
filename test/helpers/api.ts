import type { LocalServer } from './local-server';

export interface ApiResponse<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

async function parse<T>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

/** A client for the private API, authenticated with the server's personal API key unless told otherwise. */
export function privateApi(
  server: LocalServer,
  personalApiKey: string | null = server.credentials.personalApiKey,
) {
  const request = async <T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> =>
    parse<T>(
      await fetch(`${server.credentials.apiUrl}${path}`, {
        method,
        headers: {
          ...(personalApiKey ? { authorization: `Bearer ${personalApiKey}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  return {
    get: <T>(path: string) => request<T>('GET', path),
    post: <T>(path: string, body: unknown) => request<T>('POST', path, body),
    patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
    delete: <T>(path: string) => request<T>('DELETE', path),
    request,
  };
}

/** POSTs a JSON body to a public endpoint, as an SDK would. */
export async function postJson<T = unknown>(
  server: LocalServer,
  path: string,
  body: unknown,
): Promise<ApiResponse<T>> {
  return parse<T>(
    await fetch(`${server.credentials.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** Any request, as sent: for bodies that are not JSON, odd headers, or no credentials at all. */
export async function rawRequest<T = unknown>(
  server: LocalServer,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<ApiResponse<T>> {
  return parse<T>(
    await fetch(`${server.credentials.apiUrl}${path}`, { method, headers: init.headers, body: init.body }),
  );
}
