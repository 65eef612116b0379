import type { Config } from '../../config.ts';
import { isBlockedAddress, parseIp } from './ip-address.ts';

export { isBlockedAddress } from './ip-address.ts';

/**
 * Where webhooks may go. Outside production anything http(s) is allowed (local receivers are the point
 * of development). In production: https only, and no private, loopback, link-local, shared, reserved or
 * cloud-metadata destination — unless the host is listed in SVC_WEBHOOK_ALLOWED_HOSTS. The address rules
 * are applied again at connect time, after DNS, so a name that later resolves inward is still refused. The
 * address rule itself (every spelling of an address, IPv4 inside IPv6 included) is in ip-address.ts.
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
  if (parseIp(host) !== undefined && isBlockedAddress(host)) {
    return 'must not point at a private, loopback, link-local or metadata address';
  }
  if (INTERNAL_NAMES.test(host)) return 'must not point at an internal host name';
  return undefined;
}
