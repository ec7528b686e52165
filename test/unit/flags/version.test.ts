import { requestedVersion } from '../../../functions/flags/version';
import { apiGatewayEvent } from '../capture/events';

describe('requestedVersion: the ?v= of /decide and /flags (posthog/api/decide.py)', () => {
  it.each([
    [undefined, 1],
    ['', 1],
    ['1', 1],
    ['2', 2],
    ['3', 3],
    ['4', 4],
    [' 3 ', 3],
    ['+2', 2],
    ['0', 0],
    ['1.19.0', 2],
    ['abc', 2],
    // posthog-js 1.19.0 sent `v=2&v=1.19.0`; API Gateway joins repeats, Django reads the last one.
    ['2,1.19.0', 2],
    ['1,3', 3],
  ])('reads v=%p as %p', (v, version) => {
    // Prepare
    const event = apiGatewayEvent({ path: '/decide/', ...(v === undefined ? {} : { query: { v } }) });

    // Act / Assess
    expect(requestedVersion(event)).toBe(version);
  });
});
