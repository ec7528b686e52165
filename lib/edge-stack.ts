import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { CallerLimits } from '../functions/shared/http/caller-limits';
import { FlockEdge } from './flock-edge';

/** The region CloudFront web ACLs must be created in. */
export const edgeRegion = 'us-east-1';

export interface FlockEdgeStackProps extends StackProps {
  /** The HTTP API's endpoint (the stateless stack's `httpApi.api.apiEndpoint`). */
  readonly apiEndpoint: string;
  /** @default defaultCallerLimits */
  readonly limits?: CallerLimits;
}

/**
 * The optional third stack (`cdk deploy --all -c edge=true`): CloudFront and the WAF web ACL of
 * per-caller limits in front of the HTTP API, in us-east-1 whatever the other stacks' region.
 * Output `EdgeUrl`: the URL to give the SDKs instead of `ApiUrl`.
 */
export class FlockEdgeStack extends Stack {
  public readonly edge: FlockEdge;

  constructor(scope: Construct, id: string, props: FlockEdgeStackProps) {
    super(scope, id, props);
    this.edge = new FlockEdge(this, 'Edge', {
      apiEndpoint: props.apiEndpoint,
      ...(props.limits ? { limits: props.limits } : {}),
    });
    new CfnOutput(this, 'EdgeUrl', { value: this.edge.url });
  }
}
