import { copyFile, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { LakeObject, LakeStore } from '../../functions/lake/store';

/**
 * A lake bucket in a local directory (a key is a path under `root`), for the lake bench and the
 * compaction tests: the same operations as the S3 store, counted (`operations`), so a caller can tell
 * how many PUTs a run made.
 */
export interface DirectoryLakeStore extends LakeStore {
  readonly root: string;
  readonly operations: { puts: number; deletes: number; lists: number };
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const paths = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : Promise.resolve([join(dir, entry.name)]),
    ),
  );
  return paths.flat();
}

export function directoryLakeStore(root: string): DirectoryLakeStore {
  const operations = { puts: 0, deletes: 0, lists: 0 };
  const path = (key: string): string => join(root, key);
  const writing = async (key: string): Promise<string> => {
    operations.puts++;
    await mkdir(dirname(path(key)), { recursive: true });
    return path(key);
  };
  return {
    root,
    operations,
    async list(prefix) {
      operations.lists++;
      const base = prefix.slice(0, prefix.lastIndexOf('/') + 1);
      const files = await walk(path(base));
      const objects: LakeObject[] = [];
      for (const file of files) {
        const key = relative(root, file).split('\\').join('/');
        if (!key.startsWith(prefix)) continue;
        const stats = await stat(file);
        objects.push({ key, size: stats.size, lastModified: stats.mtime });
      }
      return objects.sort((a, b) => (a.key < b.key ? -1 : 1));
    },
    async listPrefixes(prefix) {
      operations.lists++;
      const entries = await readdir(path(prefix), { withFileTypes: true }).catch(() => []);
      return entries
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${prefix}${entry.name}/`)
        .sort();
    },
    async download(key, target) {
      await copyFile(path(key), target);
    },
    async upload(key, source) {
      await copyFile(source, await writing(key));
    },
    async put(key, body) {
      await writeFile(await writing(key), body);
    },
    async get(key) {
      return readFile(path(key), 'utf8');
    },
    async copy(from, to) {
      await copyFile(path(from), await writing(to));
    },
    async delete(keys) {
      if (keys.length > 0) operations.deletes++;
      await Promise.all(keys.map((key) => rm(path(key), { force: true })));
    },
  };
}
