/** PostHog-compatible feature flag evaluation: pure, no storage or HTTP. */
export { evaluateFlag, evaluateFlags } from './evaluate';
export { flagHash, holdoutHash } from './hash';
export { matchProperty } from './match-property';
export type { PropertyMatch } from './match-property';
export { matchCohort, matchPropertyGroup, CohortCycleError } from './cohorts';
export { variantForHash } from './variants';
export { parseRelativeDate } from './dates';
export type * from './types';
