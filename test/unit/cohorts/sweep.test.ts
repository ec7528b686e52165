import { CalculationTimeoutError, matchChunk } from '../../../functions/cohort_calculation/calculate';
import type { Matcher } from '../../../functions/cohort_calculation/calculate';
import { fairShare } from '../../../functions/cohort_calculation/fair-share';
import { sweep } from '../../../functions/cohort_calculation/sweep';
import { serializeCohort } from '../../../functions/cohorts/serialize';
import type { CohortRecord, DueCohort } from '../../../functions/shared/db/cohorts';
import { createCohort, getCohort, listDueCohorts } from '../../../functions/shared/db/cohorts';
import { keys } from '../../../functions/shared/db/keys';
import { eventsTable, singleTable } from '../../../functions/shared/db/schema';
import type { Person } from '../../../functions/shared/domain/persons';
import { DynaliteTables } from '../../helpers/dynalite-tables';
import { dynamicCohortFields } from '../../helpers/stored-records';

const tables = { main: singleTable.name, events: eventsTable.name };
const projectId = 7;

describe('errors_calculating, counted from the claim', () => {
  let fake: DynaliteTables;

  beforeEach(async () => {
    fake = await DynaliteTables.start([tables.main, tables.events]);
  });

  afterEach(async () => {
    await fake.stop();
  });

  const newCohort = () =>
    createCohort(
      tables.main,
      dynamicCohortFields(projectId, 'plan gold', {
        properties: { type: 'AND', values: [{ key: 'plan', type: 'person', value: 'gold' }] },
      }),
      new Date(),
    );
  const run = () =>
    sweep({
      tables,
      maxEvents: 1_000,
      maxCohorts: 20,
      concurrency: 2,
      deadline: Date.now() + 60_000,
      leaseMs: 1,
    });
  /** A run that dies after its claim: no write of the cohort after the claim reaches the table. */
  const dyingRun = async (cohort: CohortRecord) => {
    const item = keys.cohort(projectId, cohort.id);
    let cohortWrites = 0;
    fake.failWrite = (_attempt, description) =>
      description.includes(`${item.PK} ${item.SK}`) && ++cohortWrites > 1
        ? new Error('container died')
        : undefined;
    await expect(run()).rejects.toThrow('container died');
    fake.failWrite = undefined;
  };

  it('counts a run that dies before recording its outcome, and resets the count on success', async () => {
    const cohort = await newCohort();

    await dyingRun(cohort);
    const afterDeath = await getCohort(tables.main, projectId, cohort.id, true);
    const outcomes = await run();
    const afterSuccess = await getCohort(tables.main, projectId, cohort.id, true);

    expect(afterDeath?.errors_calculating).toBe(1);
    expect(outcomes).toEqual([expect.objectContaining({ cohortId: cohort.id, result: expect.anything() })]);
    expect(afterSuccess).toMatchObject({ errors_calculating: 0, is_calculating: false, count: 0 });
  });

  it('leaves the schedule after 21 runs that died', async () => {
    const cohort = await newCohort();

    for (let death = 1; death <= 21; death++) await dyingRun(cohort);
    const due = await listDueCohorts(tables.main, new Date(Date.now() + 3_600_000), 10);

    expect((await getCohort(tables.main, projectId, cohort.id, true))?.errors_calculating).toBe(21);
    expect(due).toEqual([]);
  });

  it('does not show the attempt in flight as a failure while its lease holds', () => {
    const claimed = {
      errors_calculating: 3,
      calculating_until: '2024-01-01T00:10:00.000Z',
      filters: null,
      groups: [],
    } as unknown as CohortRecord;

    const during = serializeCohort(claimed, new Date('2024-01-01T00:05:00.000Z'));
    const after = serializeCohort(claimed, new Date('2024-01-01T00:15:00.000Z'));

    expect([during.errors_calculating, after.errors_calculating]).toEqual([2, 3]);
  });
});

describe('fairShare', () => {
  const due = (projectId: number, cohortId: number, minute: number): DueCohort => ({
    projectId,
    cohortId,
    dueAt: `2024-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`,
  });

  it('gives every project a turn before any project gets a second one', () => {
    const heavy = Array.from({ length: 30 }, (_, n) => due(1, n + 1, 0));
    const others = [due(2, 100, 5), due(3, 200, 9), due(2, 101, 6)];

    const picked = fairShare([...heavy, ...others], 6);

    expect(picked.map((cohort) => `${cohort.projectId}/${cohort.cohortId}`)).toEqual([
      '1/1',
      '2/100',
      '3/200',
      '1/2',
      '2/101',
      '1/3',
    ]);
  });

  it('reads each cohort once when both ends of the due index list it', () => {
    const picked = fairShare([due(1, 1, 0), due(1, 1, 0), due(1, 2, 1)], 5);

    expect(picked.map((cohort) => cohort.cohortId)).toEqual([1, 2]);
  });
});

describe('matchChunk', () => {
  const persons = ['a', 'b', 'c'].map(
    (uuid) => ({ uuid, properties: { plan: 'gold' } }) as unknown as Person,
  );
  const matcher: Matcher = {
    tree: { type: 'AND', values: [{ key: 'plan', type: 'person', value: 'gold' }] },
    context: (person) => ({ cohorts: {}, personProperties: person.properties, now: new Date() }),
  };

  afterEach(() => jest.restoreAllMocks());

  it('matches a chunk within its deadline', () => {
    expect(matchChunk(persons, matcher, Date.now() + 60_000)).toEqual(['a', 'b', 'c']);
  });

  it('stops inside a chunk once the deadline passes, not at the next chunk', () => {
    const clock = jest.spyOn(Date, 'now').mockReturnValueOnce(1_000).mockReturnValue(3_000);

    expect(() => matchChunk(persons, matcher, 2_000)).toThrow(CalculationTimeoutError);
    expect(clock).toHaveBeenCalledTimes(2);
  });
});
