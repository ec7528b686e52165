import { baseName, markerName, markerPrefix, newestCompaction } from '../shared/lake/listing';
import type { CompactionMarker } from './compact';
import type { LakeStore } from './store';

/**
 * Whether a compaction merged the lake file `key` (and may have removed it since): the newest commit
 * marker of its partition lists every flush file the partition's compactions merged. The lake writer
 * asks when a claim names a file that is not in the bucket, so an event whose message comes back after
 * its file was compacted away is found in the lake, not written twice.
 */
export async function lakeFileMerged(store: LakeStore, key: string): Promise<boolean> {
  const partition = key.slice(0, key.lastIndexOf('/') + 1);
  const markers = await store.list(`${partition}${markerPrefix}`);
  const newest = newestCompaction(markers.map((object) => baseName(object.key)));
  if (newest === undefined) return false;
  const marker = JSON.parse(await store.get(`${partition}${markerName(newest)}`)) as CompactionMarker;
  return marker.merged.includes(baseName(key));
}
