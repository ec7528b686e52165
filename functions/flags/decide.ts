import { metricNames, timed } from '../shared/metrics';
import { projectOfRequest } from '../shared/public/authenticate';
import type { DecodedRequest } from '../shared/public/decode';
import { decodeRequest } from '../shared/public/decode';
import { DecodeError } from '../shared/public/errors';
import { json } from '../shared/http/responses';
import type { HttpEvent, HttpResult, RouteFunction } from '../shared/http/types';
import { projectFlagsFor } from './definitions';
import { malformedData, noApiKey } from './errors';
import type { RequestEvaluation } from './evaluation';
import { evaluateRequest } from './evaluation';
import { flagsRequestOf } from './flags-request';
import { decideConfig, decideResponse, flagsResponse, noEvaluation } from './responses';
import { requestedVersion } from './version';

export interface FlagsSettings {
  /** The single table: tokens, flags, persons and hash-key overrides. */
  readonly tableName: string;
}

/**
 * A flags request is a few kilobytes (posthog-js sends ~2 KB of person properties); bodies above
 * this, before or after decompression, are answered 413.
 */
export const maxFlagsBodyBytes = 1024 * 1024;

/**
 * The public decoding (every SDK encoding) with decide's reading of it (`posthog/api/decide.py`): nothing to
 * read is no fields, and a body that cannot be decoded is `malformed_data` with capture's detail.
 */
function decode(event: HttpEvent): DecodedRequest {
  try {
    return decodeRequest(event, maxFlagsBodyBytes, { emptyIsNoFields: true });
  } catch (error) {
    if (error instanceof DecodeError) throw malformedData(`Malformed request data: ${error.message}`);
    throw error;
  }
}

type Respond = (version: number, evaluation: RequestEvaluation) => unknown;

/**
 * POST: decode, find the project (401/503 as decide does), read the request, evaluate its flags and
 * answer in the shape the path and `?v=` ask for. Evaluation problems never fail the request: they
 * show as failed flags and `errorsWhileComputingFlags`.
 */
function evaluationRoute(settings: FlagsSettings, respond: Respond): RouteFunction {
  return timed(metricNames.decideLatency, async (event: HttpEvent): Promise<HttpResult> => {
    const { payload, form } = decode(event);
    const project = await projectOfRequest(settings.tableName, payload, form, event, noApiKey);
    const request = flagsRequestOf(payload);
    const evaluation = request.disableFlags
      ? noEvaluation
      : await evaluateRequest(
          settings.tableName,
          await projectFlagsFor(settings.tableName, project.project_id),
          request,
        );
    return json(200, respond(requestedVersion(event), evaluation));
  });
}

/** `POST /decide/`: Django's v1–v3 shapes, the detailed shape from v4 on, with decide's config. */
export const decide = (settings: FlagsSettings): RouteFunction =>
  evaluationRoute(settings, (version, evaluation) => decideResponse(version, evaluation));

/** `POST /flags/`: what posthog-node and posthog-js call (`?v=2`); FlagsV1 without a version. */
export const flags = (settings: FlagsSettings): RouteFunction =>
  evaluationRoute(settings, (version, evaluation) => flagsResponse(version, evaluation));

/** `GET /decide/` and `GET /flags/`: Django's decide answers a GET with its config and no flags. */
export async function configOnly(): Promise<HttpResult> {
  return json(200, { ...decideConfig(), featureFlags: [] });
}

/** Preflights: the CORS middleware adds the headers; the body is capture's usual success. */
export async function preflight(): Promise<HttpResult> {
  return json(200, { status: 1 });
}
