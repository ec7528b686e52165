import { CallerLimiter } from '../../../bin/local/caller-limiter';
import type { CallerLimits } from '../../../functions/shared/http/caller-limits';

const limits: CallerLimits = { perKey: 60, perIpPrivate: 120, perIpPublic: 6 };

describe('the local per-caller limiter', () => {
  let now: number;
  const clock = { now: () => now };
  beforeEach(() => {
    now = 1_000_000;
  });

  const admitted = (limiter: CallerLimiter, request: Parameters<CallerLimiter['admit']>[0], times: number) =>
    Array.from({ length: times }, () => limiter.admit(request)).filter((wait) => wait === 0).length;

  it("admits a window's limit at once, then one request per limit-th of the window", () => {
    // Prepare
    const limiter = new CallerLimiter(limits, { clock });
    const capture = { path: '/capture/', sourceIp: '203.0.113.9' };

    // Act, Assess: 6 a minute is one every 10 s.
    expect(admitted(limiter, capture, 10)).toBe(6);
    expect(limiter.admit(capture)).toBe(10);
    now += 4_000;
    expect(limiter.admit(capture)).toBe(6);
    now += 6_000;
    expect(limiter.admit(capture)).toBe(0);
    expect(limiter.admit(capture)).toBe(10);
  });

  it('counts a private request per key and per address, and a public one per address only', () => {
    // Prepare
    const limiter = new CallerLimiter({ perKey: 2, perIpPrivate: 3, perIpPublic: 1 }, { clock });
    const ip = '198.51.100.7';

    // Act, Assess: the key's bucket empties first; another key from the same address meets the
    // address's; the public endpoints count apart.
    expect(admitted(limiter, { path: '/api/projects/', sourceIp: ip, authorization: 'Bearer a' }, 5)).toBe(2);
    expect(admitted(limiter, { path: '/api/projects/', sourceIp: ip, authorization: 'Bearer b' }, 5)).toBe(1);
    expect(admitted(limiter, { path: '/users/@me/', sourceIp: '198.51.100.8' }, 5)).toBe(3);
    expect(admitted(limiter, { path: '/decide/', sourceIp: ip }, 5)).toBe(1);
  });

  it('turns a limit of 0 off', () => {
    const limiter = new CallerLimiter({ perKey: 0, perIpPrivate: 0, perIpPublic: 0 }, { clock });
    expect(admitted(limiter, { path: '/batch/', sourceIp: '192.0.2.1' }, 1_000)).toBe(1_000);
  });

  it('tracks a bounded number of callers, forgetting the least recently seen with a full bucket', () => {
    // Prepare
    const limiter = new CallerLimiter(limits, { clock, maxCallers: 3 });
    const first = { path: '/e/', sourceIp: '192.0.2.1' };
    expect(admitted(limiter, first, 10)).toBe(6);

    // Act: three other addresses push the first out.
    for (const sourceIp of ['192.0.2.2', '192.0.2.3', '192.0.2.4']) limiter.admit({ path: '/e/', sourceIp });

    // Assess
    expect(admitted(limiter, first, 10)).toBe(6);
  });
});
