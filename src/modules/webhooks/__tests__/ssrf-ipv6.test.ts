import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { AppError } from '../../../core/http/errors.ts';
import { destinationPolicy } from '../destinations.ts';
import { createEndpoint, isBlockedAddress, type Resolver } from '../index.ts';
import { guardedLookup } from '../worker/lookup.ts';
import { SECRET, suiteReceiver, webhookSuite } from './suite.ts';
import { webhookConfig } from './support.ts';

const production = () => webhookConfig({ env: 'production', webhookRetryScheduleMs: [] });

/**
 * Every IPv6 spelling of an inside address (issue 28 item 6: `https://[::127.0.0.1]:18443/` was accepted).
 * Each is refused as a URL when an endpoint is created, and as a DNS answer when a worker connects.
 */
const INSIDE_IPV6 = [
  '::127.0.0.1', // IPv4-compatible loopback, the reported one (the URL parser writes it ::7f00:1)
  '::7f00:1',
  '0:0:0:0:0:0:7f00:1',
  '::10.0.0.1',
  '::8.8.8.8', // IPv4-compatible addresses are deprecated: none is a real destination
  '::',
  '::1',
  '0000:0000:0000:0000:0000:0000:0000:0001',
  '::ffff:127.0.0.1', // IPv4-mapped
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:1',
  '::FFFF:127.0.0.1',
  '::ffff:10.1.2.3',
  '::ffff:169.254.169.254',
  '::ffff:0:127.0.0.1', // IPv4-translated (SIIT)
  '64:ff9b::127.0.0.1', // NAT64 to an inside IPv4
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::c0a8:101',
  '64:ff9b:1::808:808', // local-use NAT64: the operator's own translator
  '2002:7f00:1::1', // 6to4 of 127.0.0.1
  '2002:c0a8:101::1', // 6to4 of 192.168.1.1
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo whose client is 127.0.0.1 (stored inverted)
  '2001:0:a00:1::1', // Teredo whose server is 10.0.0.1
  'fe80::1',
  'fe80::1%eth0',
  'fd00:ec2::254',
  'fc00::1',
  'fec0::1',
  'ff02::1',
  '100::1',
  '2001:db8::1',
];

const PUBLIC_IPV6 = [
  '2606:4700:4700::1111',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
];

function lookupOnce(resolver: Resolver, hostname: string) {
  const lookup = guardedLookup(destinationPolicy(production()), resolver);
  return new Promise<{ error: NodeJS.ErrnoException | null; addresses: string | LookupAddress[] }>(
    (resolve) => lookup(hostname, { all: true }, (error, addresses) => resolve({ error, addresses })),
  );
}

describe('webhook SSRF rules: every IPv6 form of an inside address', () => {
  const s = webhookSuite();
  const receiver = suiteReceiver();

  test('the address rule reads every spelling into bytes: inside ones blocked, public ones not', () => {
    for (const address of INSIDE_IPV6) {
      assert.equal(isBlockedAddress(address), true, `${address} must be blocked`);
    }
    for (const address of PUBLIC_IPV6) {
      assert.equal(isBlockedAddress(address), false, `${address} is public`);
    }
  });

  test('create time: an endpoint URL with any of them is refused with url_not_allowed', async () => {
    const ctx = (await s.tenant(production())).ctx;
    const urls = [
      'https://[::127.0.0.1]:18443/',
      ...INSIDE_IPV6.filter((a) => !a.includes('%')).map((a) => `https://[${a}]/hook`),
    ];
    for (const url of urls) {
      await assert.rejects(
        createEndpoint(ctx, { url, secret: SECRET }),
        (error: unknown) => {
          assert.ok(error instanceof AppError, `${url}: expected an AppError, got ${String(error)}`);
          assert.equal(error.code, 'invalid_request', url);
          assert.deepEqual(
            error.details?.map((d) => [d.field, d.code]),
            [['/body/url', 'url_not_allowed']],
            url,
          );
          return true;
        },
        `${url} must be refused`,
      );
    }
    for (const address of PUBLIC_IPV6) {
      const created = await createEndpoint(ctx, { url: `https://[${address}]/hook`, secret: SECRET });
      assert.ok(created.id.startsWith('whe_'), address);
    }
  });

  test('connect time: a DNS answer with any of them is refused, public answers pass', async () => {
    for (const address of INSIDE_IPV6) {
      const only: Resolver = async () => [{ address, family: 6 }];
      const { error } = await lookupOnce(only, 'inside.example');
      assert.ok(error !== null, `a DNS answer of ${address} must be refused`);
      assert.match(error.message, /resolves to .*private, loopback/, address);
    }
    for (const address of PUBLIC_IPV6) {
      const only: Resolver = async () => [{ address, family: 6 }];
      const { error, addresses } = await lookupOnce(only, 'public.example');
      assert.equal(error, null, `${address} is public`);
      assert.deepEqual(addresses, [{ address, family: 6 }]);
    }
  });

  /** An endpoint accepted under a lenient config, delivered once by a production worker: its attempts. */
  const deliverOnce = async (url: string, resolve?: Resolver) =>
    (await s.deliverOnce(url, production(), resolve === undefined ? {} : { resolve })).attempts;

  test('connect time, real sockets: a literal or a DNS answer that reaches the receiver is refused', async () => {
    // Each reaches the receiver's port on 127.0.0.1 unless the address rule refuses it before connecting.
    const literals = ['::ffff:127.0.0.1', '::ffff:7f00:1', '::127.0.0.1'];
    for (const literal of literals) {
      const attempts = await deliverOnce(`https://[${literal}]:${receiver().port}/hook`);
      assert.deepEqual(
        attempts.map((a) => a.error_class),
        ['connect'],
      );
      assert.match(attempts[0]?.error_message ?? '', /private, loopback/, literal);
    }
    const mapped: Resolver = async () => [{ address: '::ffff:127.0.0.1', family: 6 }];
    const attempts = await deliverOnce(`https://mapped.example:${receiver().port}/hook`, mapped);
    assert.deepEqual(
      attempts.map((a) => a.error_class),
      ['connect'],
    );
    assert.match(attempts[0]?.error_message ?? '', /mapped\.example resolves to ::ffff:127\.0\.0\.1/);
    assert.equal(receiver().received.length, 0);
  });
});
