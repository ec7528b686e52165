import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './config';

/** Structured JSON logs; service name and level from POWERTOOLS_SERVICE_NAME / POWERTOOLS_LOG_LEVEL. */
export const logger = new Logger({ serviceName: serviceName() });
