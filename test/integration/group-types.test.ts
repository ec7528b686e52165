import { postJson } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';

describe('group types learnt from ingestion', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await sharedLocalServer('group-types');
  });

  afterAll(async () => {
    await server.stop();
  });

  it('registers the group types events name, in order, for group flags and local evaluation', async () => {
    // Act
    await postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: [
        { event: '$pageview', distinct_id: 'u1', properties: { $groups: { company: 'acme' } } },
        {
          event: '$groupidentify',
          distinct_id: '$project_p1',
          properties: { $group_type: 'project', $group_key: 'p1', $group_set: { name: 'P1' } },
        },
      ],
    });

    // Assess: the mapping posthog-node's local evaluation reads.
    const mapping = await eventually(
      'both group types in the flag definitions',
      async () => {
        const response = await fetch(
          `${server.credentials.apiUrl}/flags/definitions?token=${server.credentials.projectApiKey}&send_cohorts`,
          { headers: { authorization: `Bearer ${server.credentials.personalApiKey}` } },
        );
        const body = (await response.json()) as { group_type_mapping: Record<string, string> };
        return Object.keys(body.group_type_mapping).length === 2 ? body.group_type_mapping : undefined;
      },
      20_000,
    );
    expect(Object.values(mapping).sort()).toEqual(['company', 'project']);
    expect(Object.keys(mapping).sort()).toEqual(['0', '1']);
  });
});
