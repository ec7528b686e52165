import { PostHogAgentToolkit } from '@posthog/agent-toolkit/tools';
import type { LocalServer } from '../../helpers/local-server';
import { startLocalServer } from '../../helpers/local-server';

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
});
