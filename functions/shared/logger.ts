import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './config';
import { installSourceMappedStacks } from './source-maps';

/**
 * Where API Gateway's id of a request is in an HTTP API event (payload 2.0): Powertools'
 * `correlationPaths.API_GATEWAY_HTTP` (packages/logger/src/correlationId.ts in
 * aws-powertools/powertools-lambda-typescript), the id its access log shows.
 */
export const apiGatewayHttpCorrelationPath = 'requestContext.requestId';

/**
 * The value at a dotted path of own properties (`requestContext.requestId`), or undefined. The
 * correlation id search for the plain paths Flock uses: Powertools' own `search` needs the JMESPath
 * package loaded at every cold start for what is a property lookup here.
 */
export function valueAtPath(path: string, data: unknown): unknown {
  let value = data;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

// Every function logs through this module: its errors' stack traces then name their sources.
installSourceMappedStacks();

/** Structured JSON logs; service name and level from POWERTOOLS_SERVICE_NAME / POWERTOOLS_LOG_LEVEL. */
export const logger = new Logger({ serviceName: serviceName(), correlationIdSearchFn: valueAtPath });
