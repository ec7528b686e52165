import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';
import type * as PersonsModule from '../../functions/shared/db/persons';
import type * as DefinitionsModule from '../../functions/shared/db/definitions';
import type * as ProjectsModule from '../../functions/shared/db/projects';
import { setToolEnvironment } from '../../bin/environment';

type Persons = typeof PersonsModule;
type Definitions = typeof DefinitionsModule;
type Projects = typeof ProjectsModule;

/**
 * Persons, definitions and the project's first event through the real local server: SDK-shaped
 * requests over HTTP, the consumer fed by the local SQS poller, and reads through the repositories
 * the private API uses, against the server's own DynamoDB emulator.
 */
describe('persons and definitions through the local pipeline', () => {
  let server: LocalServer;
  let persons: Persons;
  let definitions: Definitions;
  let projects: Projects;
  let table: string;
  let projectId: number;

  beforeAll(async () => {
    server = await sharedLocalServer('persons and definitions');
    // The document client reads its endpoint when the module loads: point it at this server first.
    setToolEnvironment({ AWS_ENDPOINT_URL_DYNAMODB: server.endpoints.dynamodbEndpoint });
    persons = await import('../../functions/shared/db/persons');
    definitions = await import('../../functions/shared/db/definitions');
    projects = await import('../../functions/shared/db/projects');
    table = server.endpoints.tables.main;
    projectId = server.credentials.projectId;
  });

  afterAll(async () => {
    await server.stop();
  });

  const send = (batch: Record<string, unknown>[]) =>
    postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });

  const waitForEvent = (uuid: string) =>
    eventually(`event ${uuid} to be stored`, async () => {
      const page = await privateApi(server).get<{ results: { id: string }[] }>(
        `/api/projects/${projectId}/events/?limit=1000`,
      );
      return page.body.results.find((event) => event.id === uuid);
    });

  it('merges the anonymous person into the identified one, as posthog-js’s identify() asks', async () => {
    // Prepare
    const anon = `anon-${randomUUID()}`;
    const user = `user-${randomUUID()}`;
    const now = new Date().toISOString();
    // Act: a pageview, then posthog-js's $identify with top-level $set
    expect(
      (
        await send([
          {
            event: '$pageview',
            uuid: randomUUID(),
            timestamp: now,
            properties: { distinct_id: anon, $browser: 'Firefox', utm_source: 'newsletter' },
          },
        ])
      ).status,
    ).toBe(200);
    await eventually('the anonymous person to be created', async () =>
      persons.getPersonByDistinctId(table, projectId, anon),
    );
    await send([
      {
        event: '$identify',
        uuid: randomUUID(),
        timestamp: now,
        $set: { email: 'ada@example.com' },
        properties: { distinct_id: user, $anon_distinct_id: anon },
      },
    ]);
    // Assess
    const person = await eventually('the identified person to carry the email', async () => {
      const found = await persons.getPersonByDistinctId(table, projectId, user);
      return found?.properties.email ? found : undefined;
    });
    expect(person).toMatchObject({
      isIdentified: true,
      distinctIds: [anon, user],
      properties: {
        email: 'ada@example.com',
        utm_source: 'newsletter',
        $initial_browser: 'Firefox',
        $initial_utm_source: 'newsletter',
      },
    });
    expect(await persons.getPersonByDistinctId(table, projectId, anon)).toEqual(person);
    expect(await persons.getDistinctIdsOfPerson(table, projectId, person.uuid)).toEqual([anon, user]);
  });

  it('creates no person for an event sent with $process_person_profile: false', async () => {
    const ghost = `ghost-${randomUUID()}`;
    const uuid = randomUUID();
    await send([
      { event: '$pageview', uuid, properties: { distinct_id: ghost, $process_person_profile: false } },
    ]);
    await waitForEvent(uuid);
    expect(await persons.getPersonByDistinctId(table, projectId, ghost)).toBeUndefined();
  });

  it('records the event definition, its volume and the project’s first event', async () => {
    const name = `checkout ${randomUUID()}`;
    const uuids = [randomUUID(), randomUUID(), randomUUID()];
    await send(uuids.map((uuid) => ({ event: name, uuid, properties: { distinct_id: 'buyer' } })));
    for (const uuid of uuids) await waitForEvent(uuid);
    await eventually(`the definition of ${name}`, async () =>
      definitions.getEventDefinition(table, projectId, name),
    );
    expect(await definitions.getEventVolume30Day(table, projectId, name, new Date())).toBe(3);
    expect((await projects.getProject(table, projectId))?.ingested_event).toBe(true);
  });
});
