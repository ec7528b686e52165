import { DynaliteTables } from './dynalite-tables';

/** The consumer's two tables, as the tests of the consumer name them. */
export const consumerTables = { eventsTable: 'events', singleTable: 'main' } as const;

/** Fresh in-memory tables holding one project that has already ingested events. */
export async function tablesWithProject(projectId: number): Promise<DynaliteTables> {
  const fake = await DynaliteTables.start([consumerTables.singleTable, consumerTables.eventsTable]);
  await fake.seed(consumerTables.singleTable, {
    PK: `PROJECT#${projectId}`,
    SK: 'PROJECT',
    id: projectId,
    ingested_event: true,
  });
  return fake;
}
