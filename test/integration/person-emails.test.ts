import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { documentClientOf, eventually, sharedLocalServer } from '../helpers/local-server';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/shared/db/keys';

interface PersonPage {
  results: { uuid: string; distinct_ids: string[]; properties: Record<string, unknown> }[];
  next: string | null;
}

/**
 * Persons by their `email` property, as PostHog finds them: `persons/?email=` and static cohorts
 * uploaded as a CSV of emails, through the email index the consumer keeps (db/person-emails.ts).
 */
describe('persons by email (the email index)', () => {
  let server: LocalServer;
  const run = randomUUID().slice(0, 8);
  const id = (name: string) => `${name}-${run}`;
  const email = (name: string) => `${name}-${run}@example.com`;
  const api = () => privateApi(server);
  const persons = (query: string) =>
    api().get<PersonPage>(`/api/projects/${server.credentials.projectId}/persons/?${query}`);
  const byEmail = async (value: string) => (await persons(`email=${encodeURIComponent(value)}`)).body.results;

  const capture = (batch: Record<string, unknown>[]) =>
    postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: batch.map((event) => ({ uuid: randomUUID(), ...event })),
    });

  /** A static cohort made from a one-column CSV of emails; its member count and members' distinct ids. */
  async function emailCohort(emails: readonly string[]) {
    const form = new FormData();
    form.append('name', `emails ${run}`);
    form.append('is_static', 'true');
    form.append('csv', new Blob([['email', ...emails].join('\n')], { type: 'text/csv' }), 'list.csv');
    const base = `/api/projects/${server.credentials.projectId}/cohorts/`;
    const created = await fetch(`${server.credentials.apiUrl}${base}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      body: form,
    });
    expect(created.status).toBe(201);
    const cohort = (await created.json()) as { id: number; count: number };
    const members = await api().get<PersonPage>(`${base}${cohort.id}/persons/`);
    return {
      count: cohort.count,
      members: members.body.results.map((person) => [...person.distinct_ids].sort()).sort(),
    };
  }

  beforeAll(async () => {
    server = await sharedLocalServer('person-emails');
    const at = Date.now() - 60_000;
    const setting = (event: string, name: string, $set: Record<string, unknown>) => ({
      event,
      distinct_id: id(name),
      timestamp: new Date(at).toISOString(),
      properties: { $set },
    });
    await capture([
      setting('signed up', 'ann', { email: email('ann-old') }),
      setting('signed up', 'bob', { email: email('bob') }),
      // Two persons that $identify merges later: the anonymous one has the email, the user has none.
      setting('viewed', 'anon', { email: email('merged') }),
      setting('signed up', 'user', { name: 'User' }),
      // Two persons that a second merge joins, each with its own email: the survivor's own one wins.
      setting('viewed', 'anon2', { email: email('absorbed') }),
      setting('signed up', 'user2', { email: email('kept') }),
    ]);
    await eventually('every person to be found by its email', async () => {
      for (const name of ['ann-old', 'bob', 'merged', 'absorbed', 'kept'])
        if ((await byEmail(email(name))).length !== 1) return undefined;
      return true;
    });
    // Later: ann changes her email, and both pairs are merged by $identify.
    await capture([
      {
        event: 'changed email',
        distinct_id: id('ann'),
        timestamp: new Date(at + 10_000).toISOString(),
        properties: { $set: { email: email('ann-new') } },
      },
      {
        event: '$identify',
        distinct_id: id('user'),
        timestamp: new Date(at + 10_000).toISOString(),
        properties: { $anon_distinct_id: id('anon') },
      },
      {
        event: '$identify',
        distinct_id: id('user2'),
        timestamp: new Date(at + 10_000).toISOString(),
        properties: { $anon_distinct_id: id('anon2') },
      },
    ]);
    await eventually('the change and the merges to be written', async () => {
      const [ann, merged, kept] = await Promise.all([
        byEmail(email('ann-new')),
        byEmail(email('merged')),
        byEmail(email('kept')),
      ]);
      return ann.length === 1 && merged[0]?.distinct_ids.length === 2 && kept[0]?.distinct_ids.length === 2
        ? true
        : undefined;
    });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('finds a person by its current email only, after a $set changed it', async () => {
    const ann = await byEmail(email('ann-new'));
    expect(ann.map((person) => person.distinct_ids)).toEqual([[id('ann')]]);
    expect(ann[0]!.properties.email).toBe(email('ann-new'));
    expect(await byEmail(email('ann-old'))).toEqual([]);
    // Exact values, as PostHog compares them: another case or a part is no match.
    expect(await byEmail(email('ANN-NEW'))).toEqual([]);
    expect(await byEmail(`ann-new-${run}`)).toEqual([]);
  });

  it('removes the entries of emails persons no longer hold, and keeps one per current email', async () => {
    const documents = documentClientOf(server);
    const entries = async (name: string) =>
      (
        await documents.send(
          new QueryCommand({
            TableName: server.endpoints.tables.main,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: {
              ':pk': keys.personEmailPartition(server.credentials.projectId, email(name)),
            },
          }),
        )
      ).Items ?? [];
    expect(await entries('ann-old')).toEqual([]);
    expect(await entries('absorbed')).toEqual([]);
    expect(await entries('ann-new')).toHaveLength(1);
    expect(await entries('merged')).toHaveLength(1);
    documents.destroy();
  });

  it('follows merges: the survivor holds the email it took or kept, the merged-away person none', async () => {
    const merged = await byEmail(email('merged'));
    expect(merged.map((person) => [...person.distinct_ids].sort())).toEqual([
      [id('anon'), id('user')].sort(),
    ]);
    const kept = await byEmail(email('kept'));
    expect(kept.map((person) => [...person.distinct_ids].sort())).toEqual([
      [id('anon2'), id('user2')].sort(),
    ]);
    // The merged-away person's email gave way to the survivor's own.
    expect(await byEmail(email('absorbed'))).toEqual([]);
  });

  it('combines email with the other filters of the persons list', async () => {
    const query = `email=${encodeURIComponent(email('bob'))}`;
    expect((await persons(`${query}&search=bob-${run}`)).body.results).toHaveLength(1);
    expect((await persons(`${query}&search=nobody-${run}`)).body.results).toEqual([]);
  });

  it('fills a static cohort from a CSV of emails through the persons’ current email', async () => {
    const cohort = await emailCohort([
      email('ann-old'),
      email('ann-new'),
      email('bob'),
      email('merged'),
      email('absorbed'),
      email('kept'),
      email('unknown'),
      id('bob'),
    ]);
    expect(cohort.count).toBe(4);
    expect(cohort.members).toEqual(
      [[id('ann')], [id('bob')], [id('anon'), id('user')].sort(), [id('anon2'), id('user2')].sort()].sort(),
    );
  });

  it('answers 400 for an email longer than the filter allows', async () => {
    const answer = await persons(`email=${'a'.repeat(1_001)}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'validation_error', attr: 'email' });
  });
});
