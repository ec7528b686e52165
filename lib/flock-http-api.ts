import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import type { CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { HttpGroup, Route } from '../functions/routes';
import { canonicalPath, isPrivateRoute, publicApiPaths, routeKey } from '../functions/routes';

/** API Gateway throttling: steady requests per second and the burst above it (across all clients). */
export interface ApiThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface FlockHttpApiProps {
  /** The route table (`functions/routes.ts`): one API Gateway route per row. */
  readonly routes: readonly Route[];
  /** The function serving each group. */
  readonly functions: Readonly<Record<HttpGroup, IFunction>>;
  /** Every route's throttle (API Gateway answers 429 above it). */
  readonly throttle: ApiThrottle;
  /** Each private route's own, lower throttle: a flood of unauthenticated calls stays cheap. */
  readonly privateRouteThrottle: ApiThrottle;
}

/**
 * The HTTP API: exactly one route per row of the route table, each group's rows integrated with the
 * group's function (payload format 2.0). No API-level CORS: the handlers answer CORS themselves, errors
 * included. The default stage writes JSON access logs.
 */
export class FlockHttpApi extends Construct {
  public readonly api: HttpApi;
  public readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: FlockHttpApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      apiName: 'Flock',
      description: 'Flock: PostHog-compatible capture, flags and private API',
      createDefaultStage: true,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // HttpApi offers no access log settings for the stage it creates; set them on that stage directly.
    const stage = this.api.defaultStage?.node.defaultChild as CfnStage;
    stage.accessLogSettings = { destinationArn: this.accessLogs.logGroupArn, format: accessLogFormat() };
    stage.defaultRouteSettings = {
      throttlingRateLimit: props.throttle.rateLimit,
      throttlingBurstLimit: props.throttle.burstLimit,
    };
    // `routeSettings` is free-form JSON in the L1 (CDK does not rename its keys): CloudFormation's names.
    const privateRouteSettings = {
      ThrottlingRateLimit: props.privateRouteThrottle.rateLimit,
      ThrottlingBurstLimit: props.privateRouteThrottle.burstLimit,
    };
    stage.routeSettings = Object.fromEntries(
      props.routes.filter(isPrivateRoute).map((route) => [routeKey(route), privateRouteSettings]),
    );

    const defaultRouteGroups = new Set(props.routes.filter((r) => r.path === '$default').map((r) => r.group));
    const integrations = new Map<HttpGroup, HttpLambdaIntegration>();
    const integrationOf = (group: HttpGroup): HttpLambdaIntegration => {
      let integration = integrations.get(group);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${group}Integration`, props.functions[group], {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
          // One invoke permission per function for the whole API (`<api>/*/*/*`) instead of one per
          // route: routes grow with the table, and each permission costs a resource (500 per stack) and
          // resource-policy bytes (20 KB). The $default route is invoked as `<api>/<stage>/$default`,
          // which that pattern does not match, so its group keeps the per-route permission (`<api>/*/*`).
          scopePermissionToRoute: defaultRouteGroups.has(group),
        });
        integrations.set(group, integration);
      }
      return integration;
    };

    for (const route of props.routes) {
      const httpRoute = new HttpRoute(this, routeConstructId(route), {
        httpApi: this.api,
        routeKey: httpRouteKey(route),
        integration: integrationOf(route.group),
      });
      Validations.of(httpRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: authorizationReason(route) });
      // API Gateway refuses route settings for a route that does not exist yet.
      if (isPrivateRoute(route)) stage.node.addDependency(httpRoute);
    }
  }

  /** The invoke URL of the default stage, ending in `/`. */
  public get url(): string {
    const url = this.api.url;
    if (url === undefined) throw new Error('The Flock HTTP API has no default stage');
    return url;
  }
}

function httpRouteKey(route: Route): HttpRouteKey {
  if (route.path === '$default') return HttpRouteKey.DEFAULT;
  const path = routeKey(route).slice(route.method.length + 1);
  return HttpRouteKey.with(path, HttpMethod[route.method]);
}

/**
 * A stable, unique construct id per row, derived from the row's own data (not from any key derived
 * from it): the logical id of a route must never change, or CloudFormation would create the new route
 * before deleting the old one and API Gateway would refuse the duplicate route key. `/` cannot appear
 * in a construct id, and `%` never appears in a route path.
 */
function routeConstructId(route: Route): string {
  const name = route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
  return `Route ${name.replaceAll('/', '%2F')}`;
}

/** Why a route carries no API Gateway authorizer: each is authenticated in its handler. */
function authorizationReason(route: Route): string {
  if (route.path === '$default') {
    return 'The $default route only answers 404/405 in the documented error shape; it reads no data.';
  }
  if (route.method === 'OPTIONS') {
    return 'CORS preflight: browsers send it without credentials by design; the handler answers it with CORS headers only.';
  }
  if ((publicApiPaths as readonly string[]).includes(canonicalPath(route))) {
    return 'Public API documentation (the OpenAPI document, public as PostHog serves its own): it holds no data and its function has no table access.';
  }
  if (isPrivateRoute(route)) {
    return (
      'Private API routes authenticate a PostHog personal API key (Bearer phx_...) in the handler, ' +
      'against its SHA-256 hash in the single table; API Gateway has no authorizer for that scheme ' +
      'short of a Lambda authorizer, which would add a second invocation per request.'
    );
  }
  return (
    'Public PostHog endpoint: unmodified SDKs send the project token in the body or query, which no ' +
    'API Gateway authorizer can read; the handler rejects unknown tokens with 401 invalid_api_key.'
  );
}

/** One JSON line per request; the fields an operator needs to trace a request to its Lambda logs. */
function accessLogFormat(): string {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: '$context.requestId',
      requestTime: '$context.requestTime',
      sourceIp: '$context.identity.sourceIp',
      userAgent: '$context.identity.userAgent',
      method: '$context.httpMethod',
      path: '$context.path',
      routeKey: '$context.routeKey',
      status: '$context.status',
      protocol: '$context.protocol',
      responseLength: '$context.responseLength',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationStatus: '$context.integrationStatus',
      integrationError: '$context.integrationErrorMessage',
      lambdaRequestId: '$context.integration.requestId',
    }),
  ).toString();
}
