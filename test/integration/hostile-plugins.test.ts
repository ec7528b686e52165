import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { keys } from '../../functions/shared/db/keys';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { documentClientOf, eventually, sharedLocalServer } from '../helpers/local-server';
import type { TestProject } from '../helpers/projects';
import { newProject } from '../helpers/projects';

const propertyFilter = 2;
/** Deletes `Object.hasOwn` and `Function.prototype.call` where a walk follows inherited keys. */
const builtInsAttack = 'constructor.hasOwn,constructor.constructor.prototype.call';

interface Page {
  results: { event: string; properties: Record<string, unknown> }[];
}

/**
 * A tenant's plugin config must never reach the JavaScript the consumer shares with every other
 * tenant: the API refuses paths through `__proto__`, `constructor` and `prototype`, and a config stored
 * before it did (written here straight into the table) walks own keys only.
 */
describe('hostile plugin configs', () => {
  let server: LocalServer;
  const api = () => privateApi(server);

  beforeAll(async () => {
    server = await sharedLocalServer('hostile-plugins');
  });

  afterAll(async () => {
    await server.stop();
  });

  const countNamed = async (project: TestProject, name: string): Promise<number> =>
    (await api().get<Page>(`/api/projects/${project.id}/events/?event=${name}&limit=100`)).body.results
      .length;

  async function captureOne(project: TestProject, event: string, properties: Record<string, unknown>) {
    const response = await postJson(server, '/capture/', {
      api_key: project.token,
      event,
      uuid: randomUUID(),
      properties: { distinct_id: 'someone', ...properties },
    });
    expect(response.status).toBe(200);
  }

  it('refuses prototype paths in a Property Filter with a 400 naming the setting', async () => {
    const project = await newProject(server, 'Refused filter');
    for (const properties of [builtInsAttack, 'a.__proto__.b', 'prototype', 'safe,x.constructor']) {
      const response = await api().post<Record<string, unknown>>(project.configs, {
        plugin: propertyFilter,
        enabled: true,
        config: { properties },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        type: 'validation_error',
        code: 'invalid_input',
        attr: 'config__properties',
      });
    }
    const list = await api().get<{ results: unknown[] }>(project.configs);
    expect(list.body.results).toEqual([]);
  });

  it("a stored config walking inherited keys leaves the consumer's built-ins alone: every project's events are stored", async () => {
    // Prepare: a Property Filter whose settings say what the API refuses today, as a config stored
    // before it did.
    const attacker = await newProject(server, 'Attacker');
    const created = await api().post<{ id: number }>(attacker.configs, {
      plugin: propertyFilter,
      enabled: true,
      config: { properties: 'secret' },
    });
    expect(created.status).toBe(201);
    const dynamodb = documentClientOf(server);
    await dynamodb.send(
      new UpdateCommand({
        TableName: server.endpoints.tables.main,
        Key: keys.pluginConfig(attacker.id, created.body.id),
        UpdateExpression: 'SET #config = :config',
        ExpressionAttributeNames: { '#config': 'config' },
        ExpressionAttributeValues: { ':config': { properties: `${builtInsAttack},secret` } },
      }),
    );
    dynamodb.destroy();
    const victim = await newProject(server, 'Victim');

    // Act: the attack's events, spread over time so that every consumer container runs one, then the
    // other project's.
    for (let i = 0; i < 6; i++) {
      await captureOne(attacker, 'attack', { secret: 'hidden', kept: i });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    for (let i = 0; i < 20; i++) await captureOne(victim, 'victim event', { n: i });

    // Assess: all 20 of the other project's events are stored, and the attacker's too, filtered.
    await eventually(
      'the 20 events of the other project to be stored',
      async () => ((await countNamed(victim, 'victim%20event')) === 20 ? true : undefined),
      30_000,
    );
    await eventually(
      'the 6 events of the attacker to be stored',
      async () => ((await countNamed(attacker, 'attack')) === 6 ? true : undefined),
      10_000,
    );
    const stored = await api().get<Page>(`/api/projects/${attacker.id}/events/?event=attack`);
    for (const event of stored.body.results) {
      expect(event.properties).not.toHaveProperty('secret');
      expect(event.properties).toHaveProperty('kept');
    }
  }, 90_000);
});
