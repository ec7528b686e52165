import { bindOperations } from '../routes';
import {
  envNames,
  ingestQueueEnv,
  loadConfig,
  maxBodyEnv,
  singleTableEnv,
  trustedProxiesEnv,
} from '../shared/config';
import { createHttpHandler } from '../shared/http/handler';
import { captureEvents, preflight } from './capture';

const config = loadConfig(singleTableEnv.and(ingestQueueEnv).and(maxBodyEnv).and(trustedProxiesEnv));

const capture = captureEvents({
  tableName: config[envNames.singleTable],
  queueUrl: config[envNames.ingestQueueUrl],
  maxBodyBytes: config[envNames.maxBodyBytes],
  trustedProxies: config[envNames.trustedProxies],
});

/** Every capture path: POST and GET capture, OPTIONS answers preflights. */
export const handler = createHttpHandler({
  cors: true,
  routes: bindOperations('capture', { capture, preflight }),
});
