import { PostHogAgentToolkit } from '@posthog/agent-toolkit/tools';
import type { LocalServer } from '../../helpers/local-server';
import { startLocalServer } from '../../helpers/local-server';
import { lakeEvent, putLakeEvents } from '../../helpers/query';

/** PostHog's own MCP tools (`@posthog/agent-toolkit`), run without an LLM against the local server. */
describe('PostHog agent toolkit', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startLocalServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  async function run(name: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const toolkit = new PostHogAgentToolkit({
      posthogApiToken: server.credentials.personalApiKey,
      posthogApiBaseUrl: server.credentials.apiUrl,
    });
    const tool = (await toolkit.getTools()).find((candidate) => candidate.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const result = (await tool.handler(toolkit.getContext(), tool.schema.parse(params))) as {
      content: { text: string }[];
    };
    return JSON.parse(result.content[0]!.text);
  }

  it('lists organizations, reads the current one and lists its projects', async () => {
    const organizations = (await run('organizations-get')) as { id: string; name: string }[];
    expect(organizations).toHaveLength(1);
    const details = (await run('organization-details-get')) as { id: string };
    expect(details.id).toBe(organizations[0]!.id);
    const projects = (await run('projects-get')) as { id: number }[];
    expect(projects.map((project) => project.id)).toEqual([server.credentials.projectId]);
  });

  it('runs a HogQL query (query-run, a DataVisualizationNode) over the lake', async () => {
    await putLakeEvents(server, server.credentials.projectId, [
      lakeEvent('toolkit', 'a', '2024-03-04T10:00:00.000Z'),
      lakeEvent('toolkit', 'b', '2024-03-04T11:00:00.000Z'),
      lakeEvent('other', 'a', '2024-03-05T10:00:00.000Z'),
    ]);
    const results = await run('query-run', {
      query: {
        kind: 'DataVisualizationNode',
        source: {
          kind: 'HogQLQuery',
          query: 'select event, count() from events group by event order by event',
        },
      },
    });
    expect(results).toEqual([
      ['other', 1],
      ['toolkit', 2],
    ]);
  });
});
