import net from 'node:net';

/**
 * The outbound address rule of webhooks, on one parser: every textual form of an address (IPv4 dotted quad;
 * IPv6 with or without zero compression, leading zeros, an embedded dotted quad or a zone id) is read into
 * its bytes, and the bytes are judged. IPv4 carried inside IPv6 (mapped, compatible, translated, NAT64,
 * 6to4, Teredo) is judged as the IPv4 address it reaches, so no spelling of an inside address passes.
 */

const blockedV4 = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network, 0.0.0.0 reaches the local host
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
  blockedV4.addSubnet(prefix, bits, 'ipv4');
}

const blockedV6 = new net.BlockList();
for (const [prefix, bits] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d (no real destination)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated by the operator's own network
  ['100::', 64], // discard
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID (deprecated)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing identifiers
  ['fc00::', 7], // unique local (includes AWS fd00:ec2::254 metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blockedV6.addSubnet(prefix, bits, 'ipv6');
}

/** The 4 bytes of a strict dotted quad, or undefined. */
function ipv4Bytes(text: string): number[] | undefined {
  if (net.isIPv4(text) === false) return undefined;
  return text.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address in any textual form (a `%zone` suffix is ignored), or undefined. */
function ipv6Bytes(text: string): number[] | undefined {
  const address = text.replace(/%[^%]*$/, '');
  if (!net.isIPv6(address)) return undefined;
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === '') return [];
    const groups: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const v4 = ipv4Bytes(piece);
        if (v4 === undefined) return undefined;
        groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(piece)) return undefined;
        groups.push(Number.parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  return groups.flatMap((g) => [g >> 8, g & 255]);
}

/** An IP address's bytes (4 or 16), or undefined when the text is not an IP address. */
export function parseIp(text: string): number[] | undefined {
  return ipv4Bytes(text) ?? ipv6Bytes(text);
}

const dotted = (bytes: readonly number[], from: number, xor = 0) =>
  bytes
    .slice(from, from + 4)
    .map((b) => b ^ xor)
    .join('.');

const allZero = (bytes: readonly number[], from: number, to: number) =>
  bytes.slice(from, to).every((b) => b === 0);

/** The IPv4 addresses an IPv6 address reaches or carries, by the standard embeddings. */
function embeddedIpv4(b: readonly number[]): string[] {
  const at = (i: number) => b[i] ?? 0;
  // ::ffff:a.b.c.d (mapped: the socket connects to the IPv4 address) and ::ffff:0:a.b.c.d (SIIT translated).
  if (allZero(b, 0, 10) && at(10) === 0xff && at(11) === 0xff) return [dotted(b, 12)];
  if (allZero(b, 0, 8) && at(8) === 0xff && at(9) === 0xff && allZero(b, 10, 12)) return [dotted(b, 12)];
  // ::a.b.c.d (IPv4-compatible, deprecated; also blocked as a range below).
  if (allZero(b, 0, 12)) return [dotted(b, 12)];
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix): a gateway connects to the IPv4 address.
  if (at(0) === 0 && at(1) === 0x64 && at(2) === 0xff && at(3) === 0x9b && allZero(b, 4, 12)) {
    return [dotted(b, 12)];
  }
  // 2002:aabb:ccdd::/48 (6to4): the site behind a.b.c.d.
  if (at(0) === 0x20 && at(1) === 0x02) return [dotted(b, 2)];
  // 2001:0::/32 (Teredo): the server's address, and the client's stored inverted.
  if (at(0) === 0x20 && at(1) === 0x01 && at(2) === 0 && at(3) === 0) {
    return [dotted(b, 4), dotted(b, 12, 0xff)];
  }
  return [];
}

/** True for any address a webhook must not reach in production. Text that is not an IP address counts as blocked. */
export function isBlockedAddress(address: string): boolean {
  const bytes = parseIp(address);
  if (bytes === undefined) return true;
  if (bytes.length === 4) return blockedV4.check(dotted(bytes, 0), 'ipv4');
  if (embeddedIpv4(bytes).some((v4) => blockedV4.check(v4, 'ipv4'))) return true;
  const full = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0)).toString(16),
  ).join(':');
  return blockedV6.check(full, 'ipv6');
}
