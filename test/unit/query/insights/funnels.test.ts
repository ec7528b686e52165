import { ValidationError } from '../../../../functions/shared/http/errors';
import { runFunnels } from '../../../../functions/shared/query/insights/funnels';
import { type FixtureEvent, type Lake, lakeOf } from './lake-fixture';

const context = { projectId: 7, timezone: 'Europe/Paris', now: new Date('2024-06-15T12:00:00Z') };

/** `event` by `distinctId` (person `personId`) `minutes` after 10:00 UTC on 12 June 2024 (`hour` shifts it). */
const at =
  (distinctId: string, personId: string | null, hour: number, project = 7) =>
  (event: string, minutes: number, browser?: string): FixtureEvent => ({
    project,
    event,
    distinctId,
    personId,
    timestamp: new Date(Date.UTC(2024, 5, 12, 10 + hour, minutes)).toISOString(),
    properties: browser ? { $browser: browser } : {},
  });

const a1 = at('a1', 'pa1', 0);
const a2 = at('a2', null, 1);
const a3 = at('a3', 'pa3', 2);
const a4 = at('a4', 'pa4', 3);
const a5a = at('d5a', 'p5', 4);
const a5b = at('d5b', 'p5', 4);
const a6 = at('a6', 'pa6', 5);
const a7 = at('a7', 'pa7', 6);
const x1 = at('x1', 'px', 0, 8);

const events: FixtureEvent[] = [
  // a1: all three steps, 10 and 20 minutes apart.
  a1('$pageview', 0, 'Chrome'),
  a1('signup', 10),
  a1('purchase', 30),
  // a2 (no person id: its distinct id is the actor): purchase after the hour's window.
  a2('$pageview', 0, 'Chrome'),
  a2('signup', 20),
  a2('purchase', 121),
  // a3: cancels between the pageview and the signup, within the window: excluded altogether.
  a3('$pageview', 0, 'Firefox'),
  a3('cancel', 5),
  a3('signup', 10),
  a3('purchase', 15),
  // a4: the first step only.
  a4('$pageview', 0, 'Firefox'),
  // p5: two distinct ids of one person, a minute apart.
  a5a('$pageview', 0, 'Safari'),
  a5b('signup', 1),
  a5a('purchase', 2),
  // a6: signs up before the pageview: the first step only (ordered); all three (unordered).
  a6('signup', 0),
  a6('$pageview', 10, 'Chrome'),
  a6('purchase', 20),
  // a7: cancels before the funnel starts (not excluded); an unrelated event between signup and purchase.
  a7('cancel', 0),
  a7('$pageview', 1, 'Firefox'),
  a7('signup', 41),
  a7('other', 45),
  a7('purchase', 51),
  // Another project's complete funnel.
  x1('$pageview', 0, 'Chrome'),
  x1('signup', 1),
  x1('purchase', 2),
];

let lake: Lake;
beforeAll(async () => {
  lake = await lakeOf(events);
});
afterAll(async () => lake.close());

const steps = [
  { kind: 'EventsNode', event: '$pageview' },
  { kind: 'EventsNode', event: 'signup' },
  { kind: 'EventsNode', event: 'purchase' },
];
const funnels = (filter: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  runFunnels(
    lake.connection,
    {
      kind: 'FunnelsQuery',
      series: steps,
      dateRange: { date_from: '-7d' },
      funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour', ...filter },
      ...extra,
    },
    context,
  );
const cancelled = {
  exclusions: [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 1 }],
};
type Step = {
  count: number;
  name: string;
  average_conversion_time: number | null;
  median_conversion_time: number | null;
};
const counts = (results: unknown) => (results as Step[]).map((step) => step.count);

describe('runFunnels over lake files', () => {
  it('counts a 3-step ordered funnel per person within the window, with an exclusion', async () => {
    const response = await funnels(cancelled);
    const results = response.results as Step[];
    // Step 1: a1, a2, a4, p5, a6, a7 (a3 excluded); step 2: a1, a2, p5, a7; step 3: a1, p5, a7.
    expect(counts(results)).toEqual([6, 4, 3]);
    expect(results[0]).toMatchObject({
      action_id: '$pageview',
      name: '$pageview',
      order: 0,
      people: [],
      type: 'events',
      average_conversion_time: null,
      median_conversion_time: null,
    });
    // Pageview → signup: a1 600 s, a2 1200 s, p5 60 s, a7 2400 s; signup → purchase: 1200, 60, 600.
    expect(results[1]).toMatchObject({ average_conversion_time: 1065, median_conversion_time: 900 });
    expect(results[2]).toMatchObject({ average_conversion_time: 620, median_conversion_time: 600 });
  });

  it('counts the excluded actor without the exclusion, and its window in minutes as in hours', async () => {
    const response = await funnels({ funnelWindowInterval: 60, funnelWindowIntervalUnit: 'minute' });
    expect(counts(response.results)).toEqual([7, 5, 4]);
  });

  it('breaks a strict funnel on any other event between steps', async () => {
    const response = await funnels({ ...cancelled, funnelOrderType: 'strict' });
    // a7's unrelated event stops it at signup; a6's pageview comes after its signup.
    expect(counts(response.results)).toEqual([6, 4, 2]);
  });

  it('counts an unordered funnel by the distinct steps within a window', async () => {
    const response = await funnels({ funnelOrderType: 'unordered' });
    const results = response.results as Step[];
    expect(results.map((step) => step.name)).toEqual([
      'Completed 1 step',
      'Completed 2 steps',
      'Completed 3 steps',
    ]);
    expect(counts(results)).toEqual([7, 6, 5]);
  });

  it('breaks down by the first touch of $browser, the rest as Other', async () => {
    const response = await funnels(cancelled, {
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 2 },
    });
    const lists = response.results as (Step & { breakdown_value: string[] })[][];
    expect(lists.map((list) => [list[0]!.breakdown_value, counts(list)])).toEqual([
      [['Chrome'], [3, 2, 1]], // a1, a2, a6
      [['Firefox'], [2, 1, 1]], // a4, a7
      [['Other'], [1, 1, 1]], // p5 (Safari)
    ]);
  });

  it('answers no steps when no actor entered the funnel, and never counts another project', async () => {
    const empty = await funnels({}, { dateRange: { date_from: '2024-01-01', date_to: '2024-01-31' } });
    expect(empty.results).toEqual([]);
    const other = await runFunnels(
      lake.connection,
      { kind: 'FunnelsQuery', series: steps, dateRange: { date_from: '-7d' } },
      { ...context, projectId: 8 },
    );
    expect(counts(other.results)).toEqual([1, 1, 1]);
  });

  it.each([
    [{ series: steps.slice(0, 1) }, 'series'],
    [
      {
        series: steps,
        funnelsFilter: {
          exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 3 }],
        },
      },
      'funnelsFilter__exclusions__0__funnelToStep',
    ],
    [
      {
        series: steps,
        funnelsFilter: {
          exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 1, funnelToStep: 1 }],
        },
      },
      'funnelsFilter__exclusions__0__funnelFromStep',
    ],
    [
      { series: steps, funnelsFilter: { funnelOrderType: 'unordered', ...cancelled } },
      'funnelsFilter__exclusions__0',
    ],
    [
      { series: steps, funnelsFilter: { breakdownAttributionType: 'step' } },
      'funnelsFilter__breakdownAttributionType',
    ],
    [{ series: steps, funnelsFilter: { funnelVizType: 'trends' } }, 'funnelsFilter__funnelVizType'],
    [
      { series: steps, funnelsFilter: { funnelWindowIntervalUnit: 'year' } },
      'funnelsFilter__funnelWindowIntervalUnit',
    ],
    [
      { series: [...steps.slice(0, 1), { kind: 'EventsNode', event: 'x', optionalInFunnel: true }] },
      'series__1',
    ],
  ])('refuses %j with a 400 naming %s', async (query, attr) => {
    const error = await runFunnels(lake.connection, { kind: 'FunnelsQuery', ...query }, context).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).attr).toBe(attr);
  });
});

describe('runFunnels: an unordered funnel of many actors', () => {
  // 1,500 actors (distinct ids anyone with the project token can send), each doing the first two steps.
  const actors = 1_500;
  const many = Array.from({ length: actors }, (_, i) => at(`m${i}`, null, 0)).flatMap((actor) => [
    actor('$pageview', 0),
    actor('signup', 1),
  ]);
  let manyLake: Lake;
  beforeAll(async () => {
    manyLake = await lakeOf(many);
  });
  afterAll(async () => manyLake.close());

  it('groups the actors of one breakdown value without copying the group per actor', async () => {
    // Counted, not timed: before, each actor copied its value's group so far (n²/2 elements, over a
    // million here; 11 s of CPU for 40,000 actors).
    const iterate = jest.spyOn(Array.prototype, Symbol.iterator);
    let response: Record<string, unknown>;
    let copied: number;
    try {
      response = await runFunnels(
        manyLake.connection,
        {
          kind: 'FunnelsQuery',
          series: steps,
          dateRange: { date_from: '-7d' },
          funnelsFilter: {
            funnelOrderType: 'unordered',
            funnelWindowInterval: 1,
            funnelWindowIntervalUnit: 'hour',
          },
        },
        context,
      );
      copied = iterate.mock.contexts.reduce((sum: number, self) => sum + (self as unknown[]).length, 0);
    } finally {
      iterate.mockRestore();
    }
    expect(counts(response.results)).toEqual([actors, actors, 0]);
    expect(copied).toBeLessThan(50 * actors);
  });
});
