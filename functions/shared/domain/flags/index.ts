/** PostHog-compatible feature flag evaluation: pure, no storage or HTTP. */
export { evaluateFlag, evaluateFlags } from './evaluate';
export type * from './types';
