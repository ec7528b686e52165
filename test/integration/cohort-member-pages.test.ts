import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { cohortMemberPartitions } from '../../functions/shared/db/cohort-members';
import { keys } from '../../functions/shared/db/keys';
import { personUuidFor } from '../../functions/shared/domain/persons';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { documentClientOf, eventually, sharedLocalServer } from '../helpers/local-server';
import type { CalculatedCohort } from './cohorts/helpers';
import { calculatedCohort } from './cohorts/helpers';
import { postFlags } from './flags/helpers';

interface Members {
  results: { uuid: string }[];
  next: string | null;
  previous: string | null;
}
type Stored = { PK: string; SK: string; person?: string; members?: Set<string> };

/**
 * Cohort membership as member pages (functions/shared/db/cohort-members.ts): what a calculation
 * stores, and every reader of it (the cohort's persons listing, `/decide` on a static cohort, the
 * next calculation) over member pages, member items written one per member before pages existed, and
 * both at once (a calculated cohort made static, then given uploaded members).
 */
describe('cohort member pages', () => {
  let server: LocalServer;
  let dynamodb: DynamoDBDocumentClient;
  let base: string;
  const run = randomUUID().slice(0, 8);
  const persons = 12;
  const id = (n: number) => `pages-${run}-${n}`;
  const uuid = (n: number) => personUuidFor(server.credentials.projectId, id(n));
  const pro = [0, 2, 4, 6, 8, 10];
  const free = [1, 3, 5, 7, 9, 11];
  const api = () => privateApi(server);

  const create = async (name: string, plan: string): Promise<CalculatedCohort> => {
    const answer = await api().post<CalculatedCohort>(base, {
      name: `${run} ${name}`,
      filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value: plan }] } },
    });
    if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
    return answer.body;
  };
  const calculated = (cohortId: number, after = '') => calculatedCohort(server, cohortId, after);
  const stored = async (cohortId: number): Promise<Stored[]> => {
    const shards = await Promise.all(
      cohortMemberPartitions(server.credentials.projectId, cohortId).map(async (partition) => {
        const result = await dynamodb.send(
          new QueryCommand({
            TableName: server.endpoints.tables.main,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': partition },
          }),
        );
        return (result.Items ?? []) as Stored[];
      }),
    );
    return shards.flat();
  };
  /** The pages' members, following `next` from the first page (or `previous` back from `start`). */
  const walk = async (
    cohortId: number,
    limit: number,
    start?: string,
    link: 'next' | 'previous' = 'next',
  ) => {
    const pages: string[][] = [];
    let last: Members | undefined;
    let url: string | null = start ?? `${base}${cohortId}/persons/?limit=${limit}`;
    while (url) {
      const { status, body }: { status: number; body: Members } = await api().get<Members>(
        url.replace(server.credentials.apiUrl, ''),
      );
      expect(status).toBe(200);
      pages.push(body.results.map((member) => member.uuid));
      last = body;
      url = body[link];
    }
    return { pages, members: pages.flat(), last: last! };
  };
  const descending = (ns: number[]) => ns.map(uuid).sort((a, b) => (a < b ? 1 : -1));

  beforeAll(async () => {
    server = await sharedLocalServer('cohort member pages');
    dynamodb = documentClientOf(server);
    base = `/api/projects/${server.credentials.projectId}/cohorts/`;
    const batch = Array.from({ length: persons }, (_, n) => ({
      event: 'signed up',
      uuid: randomUUID(),
      distinct_id: id(n),
      properties: { $set: { plan: n % 2 === 0 ? 'pro' : 'free' } },
    }));
    const answer = await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
    expect(answer.status).toBe(200);
    await eventually(
      'the persons of the run',
      async () => {
        const page = await api().get<Members>(
          `/api/projects/${server.credentials.projectId}/persons/?search=pages-${run}&limit=100`,
        );
        return page.body.results.length === persons ? true : undefined;
      },
      30_000,
    );
  });

  afterAll(async () => {
    dynamodb.destroy();
    await server.stop();
  });

  it('stores a calculated cohort in member pages: a string set of members per page, no item per member', async () => {
    const cohort = await calculated((await create('pro pages', 'pro')).id);

    const items = await stored(cohort.id);
    expect(cohort.count).toBe(pro.length);
    expect(items.filter((item) => item.person !== undefined)).toEqual([]);
    expect(items.every((item) => item.SK.startsWith('#') && item.members instanceof Set)).toBe(true);
    expect(items.flatMap((item) => [...item.members!]).sort()).toEqual(pro.map(uuid).sort());
  });

  it('reads members stored one item each before member pages, and the next calculation replaces them', async () => {
    const cohort = await calculated((await create('legacy', 'free')).id);
    // The layout before member pages: one item per member, a stale one (a pro person) among them.
    const table = server.endpoints.tables.main;
    for (const item of await stored(cohort.id))
      await dynamodb.send(new DeleteCommand({ TableName: table, Key: { PK: item.PK, SK: item.SK } }));
    for (const n of [...free, 0])
      await dynamodb.send(
        new PutCommand({
          TableName: table,
          Item: { ...keys.cohortMember(server.credentials.projectId, cohort.id, uuid(n)), person: uuid(n) },
        }),
      );
    expect((await walk(cohort.id, 4)).members).toEqual(descending([...free, 0]));

    await api().patch(`${base}${cohort.id}/`, { name: `${run} legacy, recalculated` });
    const again = await calculated(cohort.id, cohort.last_calculation!);

    expect(again.count).toBe(free.length);
    const items = await stored(cohort.id);
    expect(items.filter((item) => item.person !== undefined)).toEqual([]);
    expect((await walk(cohort.id, 4)).members).toEqual(descending(free));
  });

  it('pages members in member pages and member items by uuid, both ways, and /decide finds both', async () => {
    // Calculated into pages, then made static with uploaded members (one item each).
    const cohort = await calculated((await create('both', 'pro')).id);
    const form = new FormData();
    form.append('is_static', 'true');
    form.append(
      'csv',
      new Blob([`distinct_id\n${id(1)}\n${id(3)}\n${id(5)}\n`], { type: 'text/csv' }),
      'ids.csv',
    );
    const patched = await fetch(`${server.credentials.apiUrl}${base}${cohort.id}/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      body: form,
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as CalculatedCohort).count).toBe(pro.length + 3);
    const members = [...pro, 1, 3, 5];

    const forward = await walk(cohort.id, 4);
    expect(forward.members).toEqual(descending(members));
    expect(forward.pages.map((page) => page.length)).toEqual([4, 4, 1]);
    const backward = await walk(cohort.id, 4, forward.last.previous!, 'previous');
    expect(backward.pages).toEqual([forward.pages[1], forward.pages[0]]);

    const flag = `both-${run}`;
    const created = await api().post(`/api/projects/${server.credentials.projectId}/feature_flags/`, {
      key: flag,
      filters: {
        groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort.id }], rollout_percentage: 100 }],
      },
    });
    expect(created.status).toBe(201);
    const answers = await eventually(
      'the flag on every node',
      async () => {
        const all = await Promise.all(
          [0, 1, 7].map(async (n) => {
            const { body } = await postFlags<{ featureFlags: Record<string, boolean> }>(
              server,
              '/decide/?v=3',
              {
                token: server.credentials.projectApiKey,
                distinct_id: id(n),
              },
            );
            return body.featureFlags[flag];
          }),
        );
        return all.every((answer) => answer !== undefined) ? all : undefined;
      },
      30_000,
    );
    // Person 0 is in a member page, person 1 in an uploaded member item, person 7 in neither.
    expect(answers).toEqual([true, true, false]);
  });

  it('answers 200 to a cursor at any position, below, between or above every key', async () => {
    const cohort = await calculated((await create('cursors', 'pro')).id);
    for (const [direction, position] of [
      ['before', '!'],
      ['before', '#'],
      ['before', '\u{1F600}'],
      ['after', '!'],
      ['after', '#\uffff'],
      ['after', '\u{1F600}'],
    ]) {
      const cursor = Buffer.from(JSON.stringify([direction, position])).toString('base64url');
      const answer = await api().get<Members>(`${base}${cohort.id}/persons/?cursor=${cursor}`);
      expect([direction, position, answer.status]).toEqual([direction, position, 200]);
    }
  });
});
