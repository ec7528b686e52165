import { BlockList, isIP } from 'node:net';

/**
 * Where an S3 Export may connect. `s3BucketEndpoint` is chosen by any member of a project, and the
 * exports function sends signed PUTs to it from inside the deployment: without these rules it would
 * reach the instance metadata service, the VPC and loopback services, and its errors would tell the
 * member which ports answer. So an endpoint must be https and must not be, or resolve to, an address
 * of the ranges below. These rules are checked when a config is written (a clear 400) and again on
 * every connection (functions/exports/guarded-agent.ts), after DNS: a name that resolved to a public
 * address when the config was written may not resolve to a private one later (DNS rebinding).
 *
 * Under the local server loopback addresses are allowed, over http too: the embedded S3 emulator
 * (and a developer's MinIO, the plugin's own hint) live there.
 */

/** Why an address is refused, as the error says it. */
export type RefusedRange =
  'metadata' | 'loopback' | 'unspecified' | 'private' | 'link-local' | 'multicast' | 'reserved';

type Subnet = readonly [address: string, prefix: number];

/**
 * IANA's special-purpose registries, the ranges no S3 endpoint lives in. A BlockList matches an
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`) against its IPv4 rules, so those forms
 * are refused with them; `::/96` (IPv4-compatible, deprecated) covers `::`, `::1` and `::127.0.0.1`.
 */
const ranges: readonly (readonly [RefusedRange, readonly Subnet[], readonly Subnet[]])[] = [
  // AWS's instance metadata service, IPv4 and IPv6 (also GCP's and Azure's IPv4 one).
  ['metadata', [['169.254.169.254', 32]], [['fd00:ec2::254', 128]]],
  ['loopback', [['127.0.0.0', 8]], [['::1', 128]]],
  ['unspecified', [['0.0.0.0', 8]], [['::', 128]]],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      // Carrier-grade NAT, the shared space behind a provider's NAT.
      ['100.64.0.0', 10],
    ],
    // Unique local addresses (the VPC's IPv6 services among them).
    [['fc00::', 7]],
  ],
  ['link-local', [['169.254.0.0', 16]], [['fe80::', 10]]],
  ['multicast', [['224.0.0.0', 4]], [['ff00::', 8]]],
  [
    'reserved',
    [
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      // Reserved and the limited broadcast address.
      ['240.0.0.0', 4],
    ],
    [
      // IPv4-compatible (covers `::1` and `::127.0.0.1` too), NAT64 prefixes (they reach IPv4
      // addresses, private ones included), discard, documentation, IETF protocols (Teredo among
      // them), 6to4, and the deprecated site-local range.
      ['::', 96],
      ['64:ff9b::', 96],
      ['64:ff9b:1::', 48],
      ['100::', 64],
      ['2001::', 23],
      ['2001:db8::', 32],
      ['2002::', 16],
      ['fec0::', 10],
    ],
  ],
];

const blockLists = ranges.map(([range, ipv4, ipv6]) => {
  const list = new BlockList();
  for (const [address, prefix] of ipv4) list.addSubnet(address, prefix, 'ipv4');
  for (const [address, prefix] of ipv6) list.addSubnet(address, prefix, 'ipv6');
  return [range, list] as const;
});

/**
 * Why an IP address may not be connected to, or undefined when it may. Not an IP address at all
 * counts as reserved: callers pass resolved addresses and literals only.
 */
export function refusedRangeOf(address: string, allowLoopback: boolean): RefusedRange | undefined {
  // A zone (`fe80::1%eth0`) only ever follows a link-local address.
  const bare = address.split('%')[0]!;
  const family = isIP(bare);
  if (family === 0) return 'reserved';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [range, list] of blockLists) {
    if (!list.check(bare, type)) continue;
    // Checked in the order of `ranges`: `::1` is loopback before it is IPv4-compatible.
    return range === 'loopback' && allowLoopback ? undefined : range;
  }
  return undefined;
}

const loopbackNames = /^(?:localhost|[a-z0-9.-]*\.localhost)\.?$/;

/** A URL's host without IPv6 brackets: `[::1]` is `::1`. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Whether a URL's host is a loopback address or a name that means one (`localhost`). */
function isLoopbackHost(host: string): boolean {
  return isIP(host) ? refusedRangeOf(host, false) === 'loopback' : loopbackNames.test(host.toLowerCase());
}

const dnsLabel = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A name DNS can carry: at most 253 characters, labels of 1 to 63 (URL gives it lower-cased, punycoded). */
const isDnsName = (host: string): boolean => {
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => dnsLabel.test(label));
};

const rangeWords: Record<RefusedRange, string> = {
  metadata: 'the instance metadata service',
  loopback: 'a loopback address',
  unspecified: 'an unspecified address',
  private: 'a private address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** What an address is, for an error message: `10.0.0.1 is a private address`. */
export const describeRefusal = (address: string, range: RefusedRange): string =>
  `${address.slice(0, 100)} is ${rangeWords[range]}`;

/**
 * Why `s3BucketEndpoint` cannot be used, or undefined when it can (empty means AWS's own S3).
 * Literal addresses are judged here; names are judged on each connection, once resolved.
 */
export function bucketEndpointProblem(endpoint: string, allowLoopback: boolean): string | undefined {
  if (endpoint === '') return undefined;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'The bucket endpoint must be a URL such as https://s3.eu-west-1.amazonaws.com.';
  }
  if (url.username || url.password) return 'The bucket endpoint must not carry a user name or password.';
  const host = hostOf(url);
  const loopback = isLoopbackHost(host);
  if (loopback && !allowLoopback) return `The bucket endpoint must not be ${rangeWords.loopback}.`;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return allowLoopback
      ? 'The bucket endpoint must use https (http only for a loopback address, locally).'
      : 'The bucket endpoint must use https.';
  if (!isIP(host) && !isDnsName(host)) return 'The bucket endpoint must name a host that DNS can resolve.';
  const range = isIP(host) ? refusedRangeOf(host, allowLoopback) : undefined;
  if (range) return `The bucket endpoint must not be ${rangeWords[range]} (${describeRefusal(host, range)}).`;
  return undefined;
}
