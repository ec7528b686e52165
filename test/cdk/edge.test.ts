import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { defaultCallerLimits, throttledBody } from '../../functions/shared/http/caller-limits';
import { buildApp } from '../../lib/app';
import { FlockEdge } from '../../lib/flock-edge';
import { testApp } from '../helpers/cdk-app';

const account = '123456789012';

/** The app as `cdk deploy --all -c edge=true` builds it for `region`. */
function edgeApp(region: string | undefined) {
  const saved = { ...process.env };
  delete process.env.CDK_DEFAULT_ACCOUNT;
  delete process.env.CDK_DEFAULT_REGION;
  if (region) Object.assign(process.env, { CDK_DEFAULT_ACCOUNT: account, CDK_DEFAULT_REGION: region });
  try {
    const { app } = testApp({ context: { edge: 'true' } });
    return { app, flock: buildApp(app) };
  } finally {
    process.env = saved;
  }
}

const privatePath = {
  OrStatement: {
    Statements: ['/api/', '/users/'].map((prefix) => ({
      ByteMatchStatement: {
        FieldToMatch: { UriPath: {} },
        PositionalConstraint: 'STARTS_WITH',
        SearchString: prefix,
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    })),
  },
};

const throttledAction = {
  Block: {
    CustomResponse: {
      ResponseCode: 429,
      CustomResponseBodyKey: 'throttled',
      ResponseHeaders: [
        { Name: 'Retry-After', Value: '60' },
        { Name: 'Access-Control-Allow-Origin', Value: '*' },
        { Name: 'Access-Control-Expose-Headers', Value: 'Retry-After' },
      ],
    },
  },
};

describe('the edge stack (-c edge=true): CloudFront and WAF per-caller limits', () => {
  // GIVEN the app in eu-west-1 with the edge on
  const { app, flock } = edgeApp('eu-west-1');
  const template = Template.fromStack(flock.edge!);

  it('is deployed to us-east-1, where CloudFront web ACLs live, and synthesizes with no cdk-nag finding', () => {
    // THEN
    expect(flock.edge!.region).toBe('us-east-1');
    expect(() => app.synth()).not.toThrow();
  });

  it('limits each personal API key on the private API, by its Authorization header', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      Rules: Match.arrayWith([
        Match.objectLike({
          Name: 'PerKeyPrivate',
          Action: throttledAction,
          Statement: {
            RateBasedStatement: {
              Limit: defaultCallerLimits.perKey,
              EvaluationWindowSec: 60,
              AggregateKeyType: 'CUSTOM_KEYS',
              CustomKeys: [
                { Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
              ],
              ScopeDownStatement: privatePath,
            },
          },
        }),
      ]),
    });
  });

  it('limits each IP address on the private API and, apart, on the public endpoints', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({
          Name: 'PerIpPrivate',
          Action: throttledAction,
          Statement: {
            RateBasedStatement: {
              Limit: defaultCallerLimits.perIpPrivate,
              EvaluationWindowSec: 60,
              AggregateKeyType: 'IP',
              ScopeDownStatement: privatePath,
            },
          },
        }),
        Match.objectLike({
          Name: 'PerIpPublic',
          Action: throttledAction,
          Statement: {
            RateBasedStatement: {
              Limit: defaultCallerLimits.perIpPublic,
              EvaluationWindowSec: 60,
              AggregateKeyType: 'IP',
              ScopeDownStatement: { NotStatement: { Statement: privatePath } },
            },
          },
        }),
      ]),
    });
  });

  it("answers PostHog's 429 throttled_error body", () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      CustomResponseBodies: {
        throttled: { ContentType: 'APPLICATION_JSON', Content: JSON.stringify(throttledBody(60)) },
      },
    });
  });

  it('puts the web ACL on a CloudFront distribution that caches nothing and forwards to the HTTP API', () => {
    const [webAclId] = Object.keys(template.findResources('AWS::WAFv2::WebACL'));
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        WebACLId: { 'Fn::GetAtt': [webAclId, 'Arn'] },
        DefaultCacheBehavior: Match.objectLike({
          // Managed policies: CachingDisabled, AllViewerExceptHostHeader.
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
          OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
          AllowedMethods: Match.arrayWith(['GET', 'OPTIONS', 'PATCH', 'POST', 'DELETE']),
          ViewerProtocolPolicy: 'https-only',
        }),
        Origins: [
          Match.objectLike({
            DomainName: {
              'Fn::Select': [2, { 'Fn::Split': ['/', Match.objectLike({})] }],
            },
            CustomOriginConfig: Match.objectLike({ OriginProtocolPolicy: 'https-only' }),
          }),
        ],
      }),
    });
    template.hasOutput('EdgeUrl', {});
  });
});

describe('the edge stack is optional', () => {
  it('is not built without -c edge=true', () => {
    const { app } = testApp();
    expect(buildApp(app).edge).toBeUndefined();
  });

  it('refuses an environment-agnostic app, naming what it needs', () => {
    expect(() => edgeApp(undefined)).toThrow(/edge=true needs the target account and region/);
  });

  it('refuses a limit WAF cannot enforce, and leaves a limit of 0 out', () => {
    // GIVEN
    const stack = new Stack(testApp().app, 'Edge', { env: { account, region: 'us-east-1' } });
    const endpoint = 'https://abc.execute-api.us-east-1.amazonaws.com';
    // WHEN, THEN
    expect(
      () =>
        new FlockEdge(stack, 'Low', { apiEndpoint: endpoint, limits: { ...defaultCallerLimits, perKey: 5 } }),
    ).toThrow(/PerKeyPrivate limit must be 0 \(off\) or a whole number of at least 10/);
    const edge = new FlockEdge(stack, 'NoPublic', {
      apiEndpoint: endpoint,
      limits: { ...defaultCallerLimits, perIpPublic: 0 },
    });
    expect(edge.webAcl.rules).toHaveLength(2);
  });
});
