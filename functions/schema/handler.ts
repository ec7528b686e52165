import { bindOperations } from '../routes';
import { createHttpHandler } from '../shared/http/handler';
import { baseUrl } from '../shared/http/request';
import { json } from '../shared/http/responses';
import type { HttpEvent, HttpResult } from '../shared/http/types';

/**
 * `GET /api/schema/`: the OpenAPI 3.1 document, generated from the handlers' zod schemas. Public, as
 * PostHog's is: it describes the API and holds no data. JSON only (PostHog also offers YAML).
 */
async function serveSchema(event: HttpEvent): Promise<HttpResult> {
  // The document's module holds every route's zod schemas (and the modules they import): loaded by the
  // first request for the document, not at cold start, where building them was half the load.
  const { openApiDocument } = await import('../shared/openapi/document');
  return json(200, openApiDocument(baseUrl(event)), { 'Content-Type': 'application/vnd.oai.openapi+json' });
}

export const handler = createHttpHandler({
  routes: bindOperations('schema', { schema_retrieve: serveSchema }),
});
