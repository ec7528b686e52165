import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { HttpGroup, Operation } from '../../functions/routes';
import { bindOperations, httpGroups, operations, routeKey, routesOf } from '../../functions/routes';
import { buildDocument } from '../../functions/shared/openapi/document';
import { operationDocs } from '../../functions/shared/openapi/operations';
import { RouteMatcher } from '../../functions/shared/http/route-match';
import { FlockHttpApi } from '../../lib/flock-http-api';
import { testApp } from '../helpers/cdk-app';

/**
 * Adding an endpoint is one declaration: an operation added to a list (here a test-only one) reaches
 * the API Gateway routes, the local server's matcher, its group's dispatch and the OpenAPI document,
 * all derived from the list by the functions the stack, the local server and the handlers use.
 */
describe('an operation declared once', () => {
  const widgets: Operation = {
    id: 'widgets_list',
    group: 'events',
    method: 'GET',
    path: '/api/projects/{project_id}/widgets/',
    scope: 'query',
  };
  const list = [...operations, widgets];
  const table = routesOf(list);

  it('becomes both API Gateway routes of its path, integrated with its group', () => {
    const stack = new Stack(testApp().app, 'Test');
    const functions = Object.fromEntries(
      httpGroups.map((group) => [
        group,
        LambdaFunction.fromFunctionArn(
          stack,
          group,
          `arn:aws:lambda:us-east-1:000000000000:function:${group}`,
        ),
      ]),
    ) as Record<HttpGroup, IFunction>;
    new FlockHttpApi(stack, 'Http', {
      routes: table,
      functions,
      throttle: { rateLimit: 10, burstLimit: 10 },
      privateRouteThrottle: { rateLimit: 1, burstLimit: 1 },
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'GET /api/projects/{project_id}/widgets',
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'GET /api/projects/{project_id}/widgets/{proxy+}',
    });
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routesOf(operations).length + 2);
  });

  it("is matched by the local server's routing and dispatched to the function bound to its id", async () => {
    const match = new RouteMatcher(table).match('GET', '/api/projects/7/widgets/');
    expect(match?.route.operation).toBe(widgets);
    expect(match?.route.scopes).toEqual(['query:read']);
    const served = async () => ({ statusCode: 200, headers: {}, body: 'widgets' });
    const other = async () => ({ statusCode: 500, headers: {} });
    const dispatch = bindOperations(
      'events',
      { events_list: other, events_values: other, events_retrieve: other, widgets_list: served },
      table,
    );
    expect(dispatch[routeKey(match!.route)]).toBe(served);
  });

  it('is described by the OpenAPI document, with its scopes', () => {
    const document = buildDocument(list, [
      ...operationDocs,
      {
        operationId: 'widgets_list',
        summary: 'Widgets',
        tag: 'events',
        response: { status: 200, description: 'The widgets' },
        errors: [404],
      },
    ]) as { paths: Record<string, Record<string, { operationId: string; security: unknown }>> };
    expect(document.paths['/api/projects/{project_id}/widgets/']?.get).toMatchObject({
      operationId: 'widgets_list',
      security: [{ PersonalAPIKeyAuth: ['query:read'] }],
    });
  });
});
