import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { chunked } from '../shared/chunks';
import { lakeS3 } from './s3';

/** An object of the lake bucket, as a listing shows it. */
export interface LakeObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: Date;
}

/**
 * What compaction and project deletion do with the lake's objects: the lake bucket on S3
 * (`s3LakeStore`), or a directory (bench/support/directory-lake-store.ts, the bench's).
 */
export interface LakeStore {
  /** Every object under `prefix`, all pages. */
  list(prefix: string): Promise<LakeObject[]>;
  /** The prefixes one level below `prefix` (`prefix` + `<segment>/`). */
  listPrefixes(prefix: string): Promise<string[]>;
  download(key: string, path: string): Promise<void>;
  upload(key: string, path: string): Promise<void>;
  put(key: string, body: string | Uint8Array): Promise<void>;
  get(key: string): Promise<string>;
  copy(from: string, to: string): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
}

/** DeleteObjects takes at most this many keys. */
const deleteBatch = 1000;

export function s3LakeStore(bucket: string): LakeStore {
  return {
    async list(prefix) {
      const objects: LakeObject[] = [];
      let token: string | undefined;
      do {
        const page = await lakeS3.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? [])
          objects.push({
            key: object.Key!,
            size: object.Size ?? 0,
            lastModified: object.LastModified ?? new Date(0),
          });
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return objects;
    },
    async listPrefixes(prefix) {
      const prefixes: string[] = [];
      let token: string | undefined;
      do {
        const page = await lakeS3.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: prefix,
            Delimiter: '/',
            ContinuationToken: token,
          }),
        );
        prefixes.push(...(page.CommonPrefixes ?? []).map((common) => common.Prefix!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return prefixes;
    },
    async download(key, path) {
      const object = await lakeS3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      await pipeline(object.Body as Readable, createWriteStream(path));
    },
    async upload(key, path) {
      const { size } = await stat(path);
      await lakeS3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: createReadStream(path),
          ContentLength: size,
        }),
      );
    },
    async put(key, body) {
      await lakeS3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async get(key) {
      const object = await lakeS3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return object.Body!.transformToString();
    },
    async copy(from, to) {
      await lakeS3.send(
        new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: `${bucket}/${encodeURI(from)}` }),
      );
    },
    async delete(keys) {
      for (const batch of chunked(keys, deleteBatch)) {
        const result = await lakeS3.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map((key) => ({ Key: key })), Quiet: true },
          }),
        );
        if ((result.Errors ?? []).length > 0)
          throw new Error(
            `${result.Errors!.length} lake object(s) not deleted: ${result.Errors![0]!.Message}`,
          );
      }
    },
  };
}
