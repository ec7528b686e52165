import { Fn, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { CallerLimits } from '../functions/shared/http/caller-limits';
import {
  callerLimitWindowSeconds,
  defaultCallerLimits,
  privatePathPrefixes,
  throttledBody,
  throttledCorsHeaders,
} from '../functions/shared/http/caller-limits';

export interface FlockEdgeProps {
  /** The HTTP API's endpoint, `https://<api id>.execute-api.<region>.amazonaws.com` (a token is fine). */
  readonly apiEndpoint: string;
  /** Requests a minute per caller; 0 leaves a rule out. @default defaultCallerLimits */
  readonly limits?: CallerLimits;
}

/** WAF's smallest rate-based limit. */
const wafMinimumLimit = 10;

/** The WAF custom response body every rate rule answers with (the key in `customResponseBodies`). */
const throttledBodyKey = 'throttled';

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

const startsWith = (prefix: string): CfnWebACL.StatementProperty => ({
  byteMatchStatement: {
    fieldToMatch: { uriPath: {} },
    positionalConstraint: 'STARTS_WITH',
    searchString: prefix,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});

/** The private API by path, as the local gateway tells it (`isPrivatePath`). */
const privatePath: CfnWebACL.StatementProperty = {
  orStatement: { statements: privatePathPrefixes.map(startsWith) },
};

interface RateRule {
  readonly name: string;
  readonly limit: number;
  readonly aggregate: Pick<CfnWebACL.RateBasedStatementProperty, 'aggregateKeyType' | 'customKeys'>;
  readonly scope: CfnWebACL.StatementProperty;
}

/**
 * The per-caller limits at the edge: CloudFront in front of the HTTP API with a WAF web ACL of
 * rate-based rules, one per limit, counting over a minute: per personal API key (the `Authorization`
 * header; a request without it is not counted by that rule) and per IP address on the private API, per
 * IP address on the public endpoints. Above a limit WAF answers 429 in PostHog's `throttled_error`
 * shape with `Retry-After` and CORS headers, as the local gateway does. API Gateway's stage throttles
 * stay behind it as the ceiling for everyone together.
 *
 * A CloudFront web ACL must live in us-east-1: the stack holding this construct is deployed there.
 */
export class FlockEdge extends Construct {
  public readonly webAcl: CfnWebACL;
  public readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: FlockEdgeProps) {
    super(scope, id);
    const limits = props.limits ?? defaultCallerLimits;
    const rules: RateRule[] = [
      {
        name: 'PerKeyPrivate',
        limit: limits.perKey,
        aggregate: {
          aggregateKeyType: 'CUSTOM_KEYS',
          customKeys: [
            { header: { name: 'authorization', textTransformations: [{ priority: 0, type: 'NONE' }] } },
          ],
        },
        scope: privatePath,
      },
      {
        name: 'PerIpPrivate',
        limit: limits.perIpPrivate,
        aggregate: { aggregateKeyType: 'IP' },
        scope: privatePath,
      },
      {
        name: 'PerIpPublic',
        limit: limits.perIpPublic,
        aggregate: { aggregateKeyType: 'IP' },
        scope: { notStatement: { statement: privatePath } },
      },
    ];
    for (const rule of rules) {
      if (rule.limit !== 0 && (!Number.isInteger(rule.limit) || rule.limit < wafMinimumLimit))
        throw new Error(
          `Flock edge: the ${rule.name} limit must be 0 (off) or a whole number of at least ${wafMinimumLimit} requests a minute (WAF's minimum), not ${rule.limit}.`,
        );
    }

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: 'flock-caller-limits',
      description: 'Flock per-caller flood limits, per personal API key and per IP address',
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('FlockEdge'),
      customResponseBodies: {
        [throttledBodyKey]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(throttledBody(callerLimitWindowSeconds)),
        },
      },
      rules: rules
        .filter((rule) => rule.limit > 0)
        .map((rule, priority) => ({
          name: rule.name,
          priority,
          statement: {
            rateBasedStatement: {
              limit: rule.limit,
              evaluationWindowSec: callerLimitWindowSeconds,
              ...rule.aggregate,
              scopeDownStatement: rule.scope,
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: throttledBodyKey,
                // WAF blocks until the caller's count over the window falls below the limit: at most
                // a window from now.
                responseHeaders: [
                  { name: 'Retry-After', value: String(callerLimitWindowSeconds) },
                  ...Object.entries(throttledCorsHeaders).map(([name, value]) => ({ name, value })),
                ],
              },
            },
          },
          visibilityConfig: visibility(`FlockEdge${rule.name}`),
        })),
    });

    // `https://<id>.execute-api.<region>.amazonaws.com` → its host name.
    const apiDomain = Fn.select(2, Fn.split('/', props.apiEndpoint));
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Flock: per-caller limits (WAF) in front of the HTTP API',
      defaultBehavior: {
        origin: new HttpOrigin(apiDomain, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY }),
        allowedMethods: AllowedMethods.ALLOW_ALL,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        // Nothing is cached; with caching off, this policy forwards every viewer header (Authorization
        // included), the query string and cookies, but not Host, which API Gateway routes by.
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
      webAclId: this.webAcl.attrArn,
      priceClass: PriceClass.PRICE_CLASS_100,
      httpVersion: HttpVersion.HTTP2_AND_3,
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'PostHog SDKs send events from every country; geo restrictions would drop real users. Floods are limited per caller by the WAF.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'API Gateway writes an access log of every request that reaches it and WAF logs its own decisions; a third log of the same requests would cost per request without adding a field.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution uses the default *.cloudfront.net certificate, whose minimum TLS version CloudFront fixes; a custom domain with its own certificate can set TLSv1.2_2021.',
      },
    );
  }

  /** The URL SDKs use once the edge is deployed, ending in `/`. */
  public get url(): string {
    return `https://${this.distribution.distributionDomainName}/`;
  }
}
