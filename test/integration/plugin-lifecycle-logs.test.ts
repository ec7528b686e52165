import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { sharedLocalServer } from '../helpers/local-server';
import { newProject } from '../helpers/projects';

interface LogEntry {
  plugin_config_id: number;
  source: string;
  type: string;
  message: string;
  instance_id: string;
  timestamp: string;
}

const plugins = { flattener: 5, propertyFilter: 2 };
const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** A config's load history in its logs, as PostHog's plugin server writes it. */
describe('plugin config lifecycle logs', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await sharedLocalServer('plugin-lifecycle-logs');
  });
  afterAll(async () => {
    await server.stop();
  });
  const api = () => privateApi(server);

  /** The config's entries, oldest first, as `[message, instance_id]`. */
  async function history(configs: string, id: number): Promise<LogEntry[]> {
    const page = await api().get<{ results: LogEntry[] }>(`${configs}${id}/logs/`);
    expect(page.status).toBe(200);
    return [...page.body.results].reverse();
  }

  const loaded = (entry: LogEntry | undefined) => {
    expect(entry).toMatchObject({ source: 'SYSTEM', type: 'INFO' });
    expect(entry!.message).toMatch(new RegExp(`^Plugin loaded \\(instance ID ${uuid}\\)\\.$`));
    expect(entry!.message).toBe(`Plugin loaded (instance ID ${entry!.instance_id}).`);
    return entry!.instance_id;
  };
  const unloaded = (entry: LogEntry | undefined) => {
    expect(entry).toMatchObject({ source: 'SYSTEM', type: 'INFO' });
    expect(entry!.message).toBe(`Plugin unloaded (instance ID ${entry!.instance_id}).`);
    return entry!.instance_id;
  };

  it('enable, disable and re-enable leave loaded, unloaded, loaded, one instance ID per load', async () => {
    // GIVEN a config created disabled: nothing runs, nothing is logged
    const project = await newProject(server, 'Lifecycle');
    const created = await api().post<{ id: number }>(project.configs, {
      plugin: plugins.flattener,
      order: 1,
    });
    expect(created.status).toBe(201);
    const config = `${project.configs}${created.body.id}/`;
    expect(await history(project.configs, created.body.id)).toEqual([]);
    // WHEN it is enabled, disabled and enabled again
    for (const enabled of [true, false, true])
      expect((await api().patch(config, { enabled })).status).toBe(200);
    // THEN
    const entries = await history(project.configs, created.body.id);
    expect(entries).toHaveLength(3);
    const first = loaded(entries[0]);
    expect(unloaded(entries[1])).toBe(first);
    expect(loaded(entries[2])).not.toBe(first);
    expect(entries.every((entry) => entry.plugin_config_id === created.body.id)).toBe(true);
  });

  it('a config created enabled is loaded; saving its settings reloads it; deleting unloads it', async () => {
    const project = await newProject(server, 'Lifecycle reload');
    const created = await api().post<{ id: number }>(project.configs, {
      plugin: plugins.propertyFilter,
      enabled: true,
      order: 1,
      config: { properties: 'secret' },
    });
    expect(created.status).toBe(201);
    const config = `${project.configs}${created.body.id}/`;
    // An order change is not a reload; a settings save is.
    expect((await api().patch(config, { order: 3 })).status).toBe(200);
    expect((await api().patch(config, { config: { properties: 'secret,card' } })).status).toBe(200);
    expect((await api().delete(config)).status).toBe(204);
    // Deleting a disabled config again unloads nothing.
    expect((await api().delete(config)).status).toBe(204);

    const entries = await history(project.configs, created.body.id);
    expect(entries.map((entry) => entry.message.split(' (')[0])).toEqual([
      'Plugin loaded',
      'Plugin unloaded',
      'Plugin loaded',
      'Plugin unloaded',
    ]);
    const first = loaded(entries[0]);
    expect(unloaded(entries[1])).toBe(first);
    const second = loaded(entries[2]);
    expect(second).not.toBe(first);
    expect(unloaded(entries[3])).toBe(second);
  });
});
