import * as dns from 'node:dns';
import type { ClientRequestArgs } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { describeRefusal, refusedRangeOf } from '../shared/domain/plugins/s3-endpoint';

/**
 * The S3 Export's connections, checked where they are made: every address a destination's name
 * resolves to, and every literal address, is judged by the S3 Export's rules
 * (functions/shared/domain/plugins/s3-endpoint.ts) before any connection is opened. Checking here,
 * after DNS and not only when the config is written, is what defeats DNS rebinding: the name is
 * resolved once, by this lookup, and the socket connects to the address it judged.
 */

/** A destination the rules refuse: no connection was opened. */
export class EndpointRefusedError extends Error {
  override readonly name = 'EndpointRefusedError';
}

/**
 * `dns.lookup` (Node's default resolver), refusing a name any of whose addresses is refused. All
 * addresses are judged, not only the first: the socket may try each (happy eyeballs).
 */
export function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const range = refusedRangeOf(address, allowLoopback);
        if (range)
          return callback(
            new EndpointRefusedError(`${hostname.slice(0, 200)}: ${describeRefusal(address, range)}`),
            [],
          );
      }
      const [first] = addresses;
      if (options.all || !first) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/** Why a literal address may not be connected to (Node skips the lookup for literals). */
function literalRefusal(host: string | null | undefined, allowLoopback: boolean): Error | undefined {
  const bare = (host ?? '').replace(/^\[(.*)\]$/, '$1');
  if (!isIP(bare)) return undefined;
  const range = refusedRangeOf(bare, allowLoopback);
  return range ? new EndpointRefusedError(describeRefusal(bare, range)) : undefined;
}

type ConnectionCallback = (error: Error | null, stream: Duplex) => void;

/**
 * The agent, refusing a literal address before `connect` would open a socket to it (the agent then
 * fails the request with the refusal).
 */
function guarded<A extends HttpAgent>(agent: A, allowLoopback: boolean): A {
  const connect = agent.createConnection.bind(agent);
  agent.createConnection = (options: ClientRequestArgs, callback?: ConnectionCallback) => {
    const refusal = literalRefusal(options.host ?? options.hostname, allowLoopback);
    if (!refusal) return connect(options, callback);
    callback?.(refusal, undefined as unknown as Duplex);
    return undefined;
  };
  return agent;
}

/** The agents of an S3 Export client: http is only ever used for loopback, under the local server. */
export function guardedAgents(allowLoopback: boolean): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  const options = { keepAlive: true, lookup: guardedLookup(allowLoopback) };
  return {
    httpAgent: guarded(new HttpAgent(options), allowLoopback),
    httpsAgent: guarded(new HttpsAgent(options), allowLoopback),
  };
}
