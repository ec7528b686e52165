import type { IndexEntry, IndexPageItem, IndexSpec } from '../../functions/shared/db/event-index';
import { indexPages } from '../../functions/shared/db/event-index';

/** The index pages a delivery's events produce, without the entries `indexPages` pairs them with. */
export const buildIndexPages = (
  projectId: number,
  index: IndexSpec,
  owner: string,
  entriesByValue: ReadonlyMap<string, readonly IndexEntry[]>,
): IndexPageItem[] => indexPages(projectId, index, owner, entriesByValue).map(({ page }) => page);
