import { routeKey, routes } from '../routes';
import { envNames, ingestQueueEnv, loadConfig, maxBodyEnv, singleTableEnv } from '../shared/config';
import { createHttpHandler } from '../shared/http/handler';
import type { RouteFunction } from '../shared/http/types';
import { captureEvents, preflight } from './capture';

const config = loadConfig(singleTableEnv.and(ingestQueueEnv).and(maxBodyEnv));

const capture = captureEvents({
  tableName: config[envNames.singleTable],
  queueUrl: config[envNames.ingestQueueUrl],
  maxBodyBytes: config[envNames.maxBodyBytes],
});

const byMethod: Record<string, RouteFunction> = { POST: capture, GET: capture, OPTIONS: preflight };

/** Every capture route of the route table: POST and GET capture, OPTIONS answers preflights. */
export const handler = createHttpHandler({
  cors: true,
  routes: Object.fromEntries(
    routes
      .filter((route) => route.group === 'capture')
      .map((route) => [routeKey(route), byMethod[route.method]!]),
  ),
});
