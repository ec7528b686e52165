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
 * The integration project's shared local servers, one per jest worker, started on a worker's first
 * request and stopped when the run ends. They are children of jest's own process (the globalSetup's),
 * not of a worker: a worker has no hook at its exit to stop one gracefully, and the servers' CPU is
 * then counted with the run's. A test file asks for its worker's server over HTTP, on 127.0.0.1
 * (test/helpers/local-server.ts, `sharedLocalServer()`).
 */
export class SharedServers {
  private readonly servers = new Map<string, Promise<LocalServer>>();
  private readonly http: Server = createServer((request, response) => this.answer(request, response));
  /** `http://127.0.0.1:<port>`, which the workers find in `FLOCK_TEST_SHARED_SERVERS`. */
  url = '';

  static async listen(): Promise<SharedServers> {
    const shared = new SharedServers();
    await new Promise<void>((resolve) => shared.http.listen(0, '127.0.0.1', resolve));
    shared.url = `http://127.0.0.1:${(shared.http.address() as AddressInfo).port}`;
    return shared;
  }

  /** `GET /servers/<worker id>`: the worker's server, as `SharedServerInfo`. */
  private answer(request: IncomingMessage, response: ServerResponse): void {
    const worker = /^\/servers\/(\d{1,4})$/.exec(request.url ?? '')?.[1];
    if (request.method !== 'GET' || !worker) {
      response.writeHead(404).end();
      return;
    }
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
    const started = startLocalServer({ callerLimits: sharedCallerLimits });
    this.servers.set(worker, started);
    return started;
  }

  /** Stops the listener and every server, each as Ctrl-C stops it. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
    const servers = await Promise.allSettled([...this.servers.values()]);
    const started = servers.flatMap((server) => (server.status === 'fulfilled' ? [server.value] : []));
    await Promise.all(started.map((server) => server.stop()));
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
