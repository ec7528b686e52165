/**
 * Request body limits, one set for AWS and for the local server (which plays API Gateway and Lambda
 * with these same numbers), so a client meets the same limit and the same answer in both.
 *
 * - Up to `maxRequestBodyBytes` a body is read (capture and /flags also cap what it decompresses to).
 * - Above it, Flock answers 413 `request_too_large` in PostHog's error shape, as long as the request
 *   still reaches a function: its Lambda event (the body, base64-encoded when binary, plus headers)
 *   must fit `lambdaMaxEventBytes`, and the body must fit `gatewayMaxBodyBytes`. Beyond those, AWS
 *   answers itself (see the local server, bin/local/http-server.ts).
 *
 * 4 MiB keeps every body at or under the limit within Lambda's request limit, even base64-encoded
 * (4/3 larger: 5.6 MB), with room for the headers API Gateway admits.
 */
export const maxRequestBodyBytes = 4 * 1024 * 1024;

/** API Gateway HTTP API's hard payload quota: larger bodies never reach a function. */
export const gatewayMaxBodyBytes = 10 * 1024 * 1024;

/** Lambda's synchronous invocation request limit (6 MiB + 100 bytes), measured on the event's JSON. */
export const lambdaMaxEventBytes = 6 * 1024 * 1024 + 100;
