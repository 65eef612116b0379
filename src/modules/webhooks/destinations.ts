import net from 'node:net';
import type { Config } from '../../config.ts';

/**
 * Where webhooks may go. Outside production anything http(s) is allowed (local receivers are the point
 * of development). In production: https only, and no private, loopback, link-local, shared, reserved or
 * cloud-metadata destination — unless the host is listed in SVC_WEBHOOK_ALLOWED_HOSTS. The address rules
 * are applied again at connect time, after DNS, so a name that later resolves inward is still refused.
 */
export interface DestinationPolicy {
  enforce: boolean;
  allowedHosts: ReadonlySet<string>;
}

export function destinationPolicy(config: Pick<Config, 'env' | 'webhookAllowedHosts'>): DestinationPolicy {
  return {
    enforce: config.env === 'production',
    allowedHosts: new Set(config.webhookAllowedHosts.map((h) => h.toLowerCase())),
  };
}

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including 169.254.169.254 (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (includes AWS fd00:ec2::254 metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** IPv4 carried inside IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged as IPv4. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1] !== undefined) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] !== undefined && hex[2] !== undefined) return hexPairToIpv4(hex[1], hex[2]);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (sixToFour?.[1] !== undefined && sixToFour[2] !== undefined)
    return hexPairToIpv4(sixToFour[1], sixToFour[2]);
  return undefined;
}

function hexPairToIpv4(high: string, low: string): string {
  const a = Number.parseInt(high, 16);
  const b = Number.parseInt(low, 16);
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
}

/** True for any address a webhook must not reach in production. Non-IP input counts as blocked. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return blocked.check(v4, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/** Names that always point inward, whatever DNS says. */
const INTERNAL_NAMES =
  /^(localhost|.*\.localhost|metadata|metadata\.google\.internal|instance-data|.*\.internal)$/;

/** The URL's host without IPv6 brackets or a trailing dot, lowercased. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

export function isAllowlisted(policy: DestinationPolicy, host: string): boolean {
  return policy.allowedHosts.has(host);
}

/** Why a URL is refused, or undefined when it is acceptable. Does not resolve DNS. */
export function urlProblem(policy: DestinationPolicy, url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  if (url.hash !== '') return 'must not contain a fragment';
  if (!policy.enforce) return undefined;
  const host = hostOf(url);
  if (isAllowlisted(policy, host)) return undefined;
  if (url.protocol !== 'https:') return 'must be an https URL in production';
  if (net.isIP(host) !== 0 && isBlockedAddress(host)) {
    return 'must not point at a private, loopback, link-local or metadata address';
  }
  if (INTERNAL_NAMES.test(host)) return 'must not point at an internal host name';
  return undefined;
}
