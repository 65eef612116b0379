import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { type DestinationPolicy, isAllowlisted, isBlockedAddress } from '../destinations.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name resolution, injectable so tests can play a DNS server that answers with an inside address. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Raised when a destination is refused by the address policy; recorded as a `connect` failure. */
export class DestinationRefused extends Error {
  readonly code = 'ERR_WEBHOOK_DESTINATION_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

/**
 * The `lookup` a socket uses to connect. It checks the addresses it is about to connect to, so the check
 * and the connection see the same DNS answer (a rebinding name cannot pass the check and then move).
 * Every address must be acceptable, not just one.
 */
export function guardedLookup(policy: DestinationPolicy, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const addresses =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        const host = hostname.toLowerCase();
        if (policy.enforce && !isAllowlisted(policy, host)) {
          const refused = addresses.find((a) => isBlockedAddress(a.address));
          if (refused !== undefined) {
            callback(
              new DestinationRefused(
                `${hostname} resolves to ${refused.address}, a private, loopback, link-local or metadata address`,
              ),
              '',
            );
            return;
          }
        }
        const first = addresses[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no usable address`);
          error.code = 'ENOTFOUND';
          callback(error, '');
          return;
        }
        if (options.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
