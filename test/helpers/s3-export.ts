import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { postJson, privateApi } from './api';
import type { LocalServer } from './local-server';
import { eventually } from './local-server';

export interface ExportedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  team_id: number;
  ip: string | null;
  timestamp: string;
  properties: Record<string, unknown>;
  $set?: Record<string, unknown>;
}
export interface ConfigResponse {
  id: number;
  error: { message: string; code?: string; stack?: string } | null;
  delivery_rate_24h: number | null;
}
export interface LogEntry {
  source: string;
  type: string;
  message: string;
}

export const plugins = { geoip: 1, propertyFilter: 2, taxonomy: 4, s3Export: 10 };
/** PostHog's S3 Export layout: `<prefix>YYYY-MM-DD/<YYYYMMDD>-<HHMMSS.mmm>Z-<16 hex>.jsonl.gz`. */
export const keyLayout =
  /^(?<prefix>[^/]+\/)(\d{4})-(\d{2})-(\d{2})\/\2\3\4-\d{6}\.\d{3}Z-[0-9a-f]{16}\.jsonl\.gz$/;

/**
 * S3 Export configs writing into a bucket of the server's embedded S3, and what they exported. The
 * bucket is the test file's own (a shared server's S3 holds other files' buckets beside it).
 */
export class S3ExportHarness {
  private constructor(
    private readonly server: LocalServer,
    readonly s3: S3Client,
    readonly bucket: string,
  ) {}

  /** Creates a bucket of the file's own, named after `name`. */
  static async create(server: LocalServer, name: string): Promise<S3ExportHarness> {
    const s3 = new S3Client({
      endpoint: server.endpoints.s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const bucket = `${name}-${randomUUID().slice(0, 8)}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    return new S3ExportHarness(server, s3, bucket);
  }

  destroy(): void {
    this.s3.destroy();
  }

  /** Enables `plugin` with `config` in the project whose configs are at `configs`; the config's id. */
  async enable(configs: string, plugin: number, config: Record<string, string>, order: number) {
    const created = await privateApi(this.server).post<ConfigResponse>(configs, {
      plugin,
      enabled: true,
      order,
      config,
    });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  /** An S3 Export config writing under `prefix` of the file's bucket (or of `target`). */
  settings(prefix: string, target = this.bucket): Record<string, string> {
    return {
      awsAccessKey: 'local',
      awsSecretAccessKey: 'local',
      awsRegion: 'us-east-1',
      s3BucketName: target,
      s3BucketEndpoint: this.server.endpoints.s3Endpoint,
      s3ForcePathStyle: 'true',
      prefix,
    };
  }

  async capture(token: string, batch: Record<string, unknown>[]): Promise<void> {
    const response = await postJson(this.server, '/batch/', {
      api_key: token,
      batch: batch.map((event) => ({ uuid: randomUUID(), properties: {}, ...event })),
    });
    expect(response.status).toBe(200);
  }

  /** Every object under `prefix`: its key and its events (gunzipped JSON lines). */
  async objectsUnder(prefix: string): Promise<{ key: string; events: ExportedEvent[] }[]> {
    const listed = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix }));
    return Promise.all(
      (listed.Contents ?? []).map(async ({ Key }) => {
        const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: Key! }));
        const text = gunzipSync(Buffer.from(await object.Body!.transformToByteArray())).toString('utf8');
        return { key: Key!, events: text.split('\n').map((line) => JSON.parse(line) as ExportedEvent) };
      }),
    );
  }

  /** The exported events under `prefix` once there are at least `count`. */
  exported(prefix: string, count: number): Promise<ExportedEvent[]> {
    return eventually(
      `${count} events exported under ${prefix}`,
      async () => {
        const events = (await this.objectsUnder(prefix)).flatMap((object) => object.events);
        return events.length >= count ? events : undefined;
      },
      40_000,
    );
  }

  /**
   * Captures a marker event after the events under test and waits until it is exported under
   * `prefix`: it is received after them, in a later batch, so by then any copy of theirs has been
   * uploaded too. Returns the objects' keys and their events, the marker left out.
   */
  async exportedAfter(token: string, prefix: string): Promise<{ keys: string[]; events: ExportedEvent[] }> {
    const marker = randomUUID();
    await this.capture(token, [{ uuid: marker, event: 'marker', distinct_id: 'marker' }]);
    const objects = await eventually(
      `the marker event to be exported under ${prefix}`,
      async () => {
        const found = await this.objectsUnder(prefix);
        return found.some((object) => object.events.some((event) => event.uuid === marker))
          ? found
          : undefined;
      },
      40_000,
    );
    return {
      keys: objects.map((object) => object.key),
      events: objects.flatMap((object) => object.events).filter((event) => event.uuid !== marker),
    };
  }
}
