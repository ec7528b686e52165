import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Credentials, LocalEndpoints } from '../../bin/local/server';
import type { LocalServer } from './local-server';
import { startLocalServer } from './local-server';

/** What a test file learns of its worker's shared server: where it is and its bootstrapped owner. */
export interface SharedServerInfo {
  readonly credentials: Credentials;
  readonly endpoints: LocalEndpoints;
  readonly dataDir: string;
  readonly pid: number;
}

/**
 * Caller limits far above what the files sharing a server send together: each file used to have a
 * server of its own, and the limits are per key and per IP (127.0.0.1 for all of them). The files
 * that test the limits start their own server with the limits they assert.
 */
const sharedCallerLimits = { perKey: 1_000_000, perIpPublic: 1_000_000, perIpPrivate: 1_000_000 };

/**
 * How long a shared server stays up once no file of its worker holds it: longer than a worker takes
 * from one file's end to the next file's `beforeAll` (loading its modules), so a worker's files keep
 * one server, but short of the rest of the run, when the worker runs unit and CDK files (an idle
 * server costs about 1.5 s of CPU a minute).
 */
export const sharedServerGraceMs = 20_000;

/**
 * The integration project's shared local servers, one per jest worker, started on a worker's first
 * request and stopped when no file of the worker has held it for the grace period, or when the run
 * ends. They are children of jest's own process (the globalSetup's),
 * not of a worker: a worker has no hook at its exit to stop one gracefully, and the servers' CPU is
 * then counted with the run's. A test file asks for its worker's server over HTTP, on 127.0.0.1
 * (test/helpers/local-server.ts, `sharedLocalServer()`).
 */
export class SharedServers {
  private readonly servers = new Map<string, Promise<LocalServer>>();
  /** How many files of each worker hold its server (between their `beforeAll` and `afterAll`). */
  private readonly holders = new Map<string, number>();
  /** The pending stop of a server no file holds. */
  private readonly idleStops = new Map<string, NodeJS.Timeout>();
  /** Servers stopped for idleness, until they have exited. */
  private readonly stopping = new Set<Promise<unknown>>();
  private readonly http: Server = createServer((request, response) => this.answer(request, response));
  /** `http://127.0.0.1:<port>`, which the workers find in `FLOCK_TEST_SHARED_SERVERS`. */
  url = '';

  private constructor(private readonly graceMs: number) {}

  /** Listens on 127.0.0.1; a server no file holds stops after `graceMs`. */
  static async listen(graceMs = sharedServerGraceMs): Promise<SharedServers> {
    const shared = new SharedServers(graceMs);
    await new Promise<void>((resolve) => shared.http.listen(0, '127.0.0.1', resolve));
    shared.url = `http://127.0.0.1:${(shared.http.address() as AddressInfo).port}`;
    return shared;
  }

  /**
   * `GET /servers/<worker id>`: the worker's server, as `SharedServerInfo`, held by the asking file
   * until its `DELETE /servers/<worker id>`.
   */
  private answer(request: IncomingMessage, response: ServerResponse): void {
    // Each answer closes its connection: a worker's files ask seconds apart, and a file reusing a
    // kept-alive connection the broker is closing meanwhile (after `keepAliveTimeout`, 5 s) fails with
    // "other side closed".
    response.shouldKeepAlive = false;
    const worker = /^\/servers\/(\d{1,4})$/.exec(request.url ?? '')?.[1];
    if (worker && request.method === 'DELETE') {
      this.release(worker);
      response.writeHead(204).end();
      return;
    }
    if (request.method !== 'GET' || !worker) {
      response.writeHead(404).end();
      return;
    }
    this.hold(worker);
    this.serverOf(worker).then(
      (server) => {
        const info: SharedServerInfo = {
          credentials: server.credentials,
          endpoints: server.endpoints,
          dataDir: server.dataDir,
          pid: server.pid,
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(info));
      },
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  }

  /** The worker's server, started now if it has none or if its server has exited. */
  private async serverOf(worker: string): Promise<LocalServer> {
    const running = this.servers.get(worker);
    if (running && isAlive(await running.catch(() => undefined))) return running;
    const started = startLocalServer({
      callerLimits: sharedCallerLimits,
      // The files sharing it calculate cohorts and run plugin jobs; a second is what they wait at most.
      cohortIntervalSeconds: 1,
      jobsIntervalSeconds: 1,
    });
    this.servers.set(worker, started);
    return started;
  }

  private hold(worker: string): void {
    this.holders.set(worker, (this.holders.get(worker) ?? 0) + 1);
    clearTimeout(this.idleStops.get(worker));
    this.idleStops.delete(worker);
  }

  /** A file is done with its worker's server: stopped after the grace period if no file takes it. */
  private release(worker: string): void {
    const holders = Math.max(0, (this.holders.get(worker) ?? 0) - 1);
    this.holders.set(worker, holders);
    const server = this.servers.get(worker);
    if (holders > 0 || !server) return;
    clearTimeout(this.idleStops.get(worker));
    const idleStop = setTimeout(() => {
      this.idleStops.delete(worker);
      // A file asking for the worker's server from now on gets a new one.
      this.servers.delete(worker);
      const stopped = server.then((started) => started.stop()).catch(() => undefined);
      this.stopping.add(stopped);
      void stopped.finally(() => this.stopping.delete(stopped));
    }, this.graceMs);
    this.idleStops.set(worker, idleStop);
  }

  /** Stops the listener and every server, each as Ctrl-C stops it. */
  async stop(): Promise<void> {
    for (const idleStop of this.idleStops.values()) clearTimeout(idleStop);
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
    const servers = await Promise.allSettled([...this.servers.values()]);
    const started = servers.flatMap((server) => (server.status === 'fulfilled' ? [server.value] : []));
    await Promise.all([...started.map((server) => server.stop()), ...this.stopping]);
  }
}

function isAlive(server: LocalServer | undefined): server is LocalServer {
  if (!server) return false;
  try {
    process.kill(server.pid, 0);
    return true;
  } catch {
    return false;
  }
}
