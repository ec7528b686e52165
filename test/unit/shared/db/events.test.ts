import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { IndexPageItem } from '../../../../functions/shared/db/event-index';
import type { EventItem } from '../../../../functions/shared/db/events';
import { listEvents, toEventItem } from '../../../../functions/shared/db/events';
import { buildIndexPages } from '../../../helpers/index-pages';

const dynamodb = mockClient(DynamoDBDocumentClient);
const index = { name: 'distinct_id', shards: 1 };
const at = (second: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, second)).toISOString();

function event(uuid: string, second: number, owner: string): EventItem {
  return toEventItem(
    {
      uuid,
      projectId: 7,
      event: 'e',
      distinctId: 'u',
      properties: {},
      timestamp: at(second),
      elementsChain: '',
      createdAt: at(second),
    },
    owner,
  );
}

/** Serves index pages (newest max first) and event items by uuid. */
function serve(pages: IndexPageItem[], items: EventItem[]) {
  dynamodb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
    Items: pages
      .filter((page) => page.PK === input.ExpressionAttributeValues[':pk'])
      .filter(
        (page) =>
          !input.ExpressionAttributeValues[':bound'] || page.SK < input.ExpressionAttributeValues[':bound'],
      )
      .sort((a, b) => (a.SK < b.SK ? 1 : -1)),
  }));
  dynamodb
    .on(BatchGetCommand)
    .callsFake((input: { RequestItems: Record<string, { Keys: { PK: string; SK: string }[] }> }) => {
      const [table, { Keys }] = Object.entries(input.RequestItems)[0]!;
      return {
        Responses: {
          [table]: items.filter((item) => Keys.some((key) => key.PK === item.PK && key.SK === item.SK)),
        },
      };
    });
}

describe('listEvents', () => {
  beforeEach(() => dynamodb.reset());

  it('lists an event once even when a failed delivery listed it too, next to an event of that delivery', async () => {
    // Prepare: delivery `failed` stored W and listed W and U, but failed on U's item; delivery
    // `retry` then stored U and listed it again. Both listings of U tie in time.
    const pages = [
      ...buildIndexPages(
        7,
        index,
        'failed',
        new Map([
          [
            'u',
            [
              { timestamp: at(9), uuid: 'w' },
              { timestamp: at(5), uuid: 'u' },
            ],
          ],
        ]),
      ),
      ...buildIndexPages(7, index, 'retry', new Map([['u', [{ timestamp: at(5), uuid: 'u' }]]])),
    ];
    serve(pages, [event('w', 9, 'failed'), event('u', 5, 'retry')]);

    // Act
    const { events } = await listEvents({ tableName: 't', projectId: 7, index, values: ['u'], limit: 2 });

    // Assess
    expect(events.map((stored) => stored.uuid)).toEqual(['w', 'u']);
  });

  it('skips a listing whose event item another delivery owns', async () => {
    // Prepare
    const listing = new Map([['u', [{ timestamp: at(5), uuid: 'u' }]]]);
    serve(buildIndexPages(7, index, 'stale', listing), [event('u', 5, 'current')]);

    // Act
    const { events } = await listEvents({ tableName: 't', projectId: 7, index, values: ['u'], limit: 10 });

    // Assess
    expect(events).toEqual([]);
  });

  it('stops a post-filtered read at its time budget with a resume point instead of reading every entry', async () => {
    // Prepare: 600 events a minute apart (a page each), a filter that keeps none and takes 40 ms a chunk.
    const minute = (i: number) => new Date(Date.UTC(2026, 10, 21, 10, i)).toISOString();
    const uuids = Array.from({ length: 600 }, (_, i) => `e-${String(i).padStart(3, '0')}`);
    const pages = uuids.flatMap((uuid, i) =>
      buildIndexPages(7, index, 'o', new Map([['u', [{ timestamp: minute(i), uuid }]]])),
    );
    const items = uuids.map((uuid, i) => ({ ...event(uuid, 0, 'o'), ts: minute(i) }));
    serve(pages, items);
    const slowRejectAll = async (events: readonly unknown[]) => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      return events.map(() => false);
    };

    // Act
    const result = await listEvents({
      tableName: 't',
      projectId: 7,
      index,
      values: ['u'],
      limit: 100,
      accept: slowRejectAll,
      maxReadMs: 20,
    });

    // Assess: one chunk of the first 128 entries, then a resume point after its last.
    expect(result.events).toEqual([]);
    expect(result.resumeFrom).toEqual({
      timestamp: minute(600 - 128),
      uuid: uuids[600 - 128],
      owners: ['o'],
    });
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(2);
  });
});
