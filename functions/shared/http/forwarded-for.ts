import { isIP } from 'node:net';

/**
 * The client address behind `trustedProxies` reverse proxies (CloudFront, a load balancer, the
 * customer's own domain), counted as a proxy's hop count is: each proxy appends the address it saw to
 * `X-Forwarded-For`, so only the last `trustedProxies` entries were written by proxies the operator
 * runs; anything to their left was written by the client and proves nothing. API Gateway appends the
 * source address it saw as the last entry, which stands for 0 proxies.
 */

/** The most proxies one may trust: a chain longer than this is a misconfiguration, not a deployment. */
export const maxTrustedProxies = 10;

/**
 * API Gateway refuses request headers above 10 KB in all; a longer value is not a real proxy chain,
 * and the source address is used (the walk below reads from the right only, so it costs nothing).
 */
export const maxForwardedForLength = 4096;

/** `1.2.3.4:5678` or `[::1]:80` (Azure's gateway and some proxies add a port): the address alone. */
function withoutPort(entry: string): string {
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(entry);
  if (bracketed) return bracketed[1]!;
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry);
  return ipv4WithPort ? ipv4WithPort[1]! : entry;
}

/** The entries of a comma-separated header from the right, trimmed; reads no further than it is asked to. */
function* fromTheRight(header: string): Generator<string> {
  let end = header.length;
  for (;;) {
    const start = end === 0 ? -1 : header.lastIndexOf(',', end - 1);
    yield header.slice(start + 1, end).trim();
    if (start < 0) return;
    end = start;
  }
}

/**
 * The address `trustedProxies` hops before the source: `sourceIp` for 0, else the entry of
 * `forwardedFor` that many places to the left of the source. API Gateway appends the source address
 * to the header as it forwards it, so a last entry equal to `sourceIp` is the gateway's own and
 * skipped (a gateway that does not append gives the same answer). A header that is missing, too long
 * or too short for the chain, or whose chosen entry is not an IP address gives `sourceIp`: the
 * address a proxy saw is never replaced by text a client wrote in its place.
 */
export function forwardedClientIp(
  sourceIp: string,
  forwardedFor: string | undefined,
  trustedProxies: number,
): string {
  if (trustedProxies <= 0 || !forwardedFor || forwardedFor.length > maxForwardedForLength) return sourceIp;
  let hops = 0;
  let first = true;
  for (const entry of fromTheRight(forwardedFor)) {
    // API Gateway's own entry: the source address again, not a proxy's hop.
    const isGatewayEntry = first && entry === sourceIp;
    first = false;
    if (isGatewayEntry) continue;
    if (++hops === trustedProxies) {
      const address = withoutPort(entry);
      return isIP(address) ? address : sourceIp;
    }
  }
  return sourceIp;
}
