import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { destinationPolicy } from '../destinations.ts';
import { createEndpoint, type Resolver } from '../index.ts';
import { guardedLookup, systemResolver } from '../worker/lookup.ts';
import { SECRET, suiteReceiver, webhookSuite } from './suite.ts';
import { createTenant, ctxFor, receiverCert, webhookConfig } from './support.ts';

const production = (allowed: string[] = []) =>
  webhookConfig({ env: 'production', webhookAllowedHosts: allowed, webhookRetryScheduleMs: [] });

/** A DNS server that points a public-looking name at the loopback interface (rebinding). */
const rebinding: Resolver = async (hostname) =>
  hostname === 'rebind.example' ? [{ address: '127.0.0.1', family: 4 }] : systemResolver(hostname);

function lookupOnce(resolver: Resolver, allowed: string[], hostname: string) {
  const lookup = guardedLookup(destinationPolicy(production(allowed)), resolver);
  return new Promise<{ error: NodeJS.ErrnoException | null; addresses: string | LookupAddress[] }>(
    (resolve) => lookup(hostname, { all: true }, (error, addresses) => resolve({ error, addresses })),
  );
}

describe('webhook SSRF rules in production', () => {
  const s = webhookSuite();
  const tlsReceiver = suiteReceiver(undefined, { tls: true, host: 'localhost' });
  const plainReceiver = suiteReceiver();

  /** Creates the endpoint under a lenient config (the URL was acceptable then), delivers under `config`. */
  const deliverOnce = (
    url: string,
    config = production(),
    extra: { resolve?: Resolver; ca?: boolean } = {},
  ) =>
    s.deliverOnce(url, config, {
      ...(extra.resolve === undefined ? {} : { resolve: extra.resolve }),
      ...(extra.ca === true ? { tls: { ca: receiverCert } } : {}),
    });

  test('a name resolving to 127.0.0.1 (localhost) is refused at connect time', async () => {
    const { attempts } = await deliverOnce(tlsReceiver().url, production(), { ca: true });
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]?.error_class, 'connect');
    assert.equal(attempts[0]?.status_code, null);
    assert.match(attempts[0]?.error_message ?? '', /refused/);
    assert.equal(tlsReceiver().received.length, 0);

    // The same through the DNS check itself: the system resolver answers 127.0.0.1 for localhost.
    const answer = await lookupOnce(systemResolver, [], 'localhost');
    assert.match(String(answer.error?.message), /resolves to 127\.0\.0\.1/);
  });

  test('DNS rebinding: a public-looking name that resolves inward is refused; allowlisting opens it', async () => {
    const url = `https://rebind.example:${tlsReceiver().port}/hook`;
    const tenantId = await createTenant(s.db);
    // Acceptable when registered: https and a public-looking name.
    await createEndpoint(ctxFor(s.db, tenantId, production()), { url, secret: SECRET });

    const refused = await deliverOnce(url, production(), { resolve: rebinding, ca: true });
    assert.deepEqual(
      refused.attempts.map((a) => a.error_class),
      ['connect'],
    );
    assert.match(refused.attempts[0]?.error_message ?? '', /rebind\.example resolves to 127\.0\.0\.1/);
    assert.equal(tlsReceiver().received.length, 0);

    const opened = await deliverOnce(url, production(['rebind.example']), { resolve: rebinding, ca: true });
    assert.deepEqual(
      opened.attempts.map((a) => [a.status_code, a.error_class]),
      [[200, null]],
    );
    assert.equal(tlsReceiver().received.filter((r) => r.headers['x-svc-delivery'] === opened.id).length, 1);
  });

  test('allowlisting localhost opens it; an untrusted certificate is a tls failure', async () => {
    const delivered = await deliverOnce(tlsReceiver().url, production(['localhost']), { ca: true });
    assert.deepEqual(
      delivered.attempts.map((a) => [a.status_code, a.error_class]),
      [[200, null]],
    );
    const untrusted = await deliverOnce(tlsReceiver().url, production(['localhost']));
    assert.deepEqual(
      untrusted.attempts.map((a) => [a.status_code, a.error_class]),
      [[null, 'tls']],
    );
  });

  test('IP literals and plain http are refused when sending, whatever was accepted before', async () => {
    const literal = await deliverOnce(`https://127.0.0.1:${tlsReceiver().port}/hook`, production(), {
      ca: true,
    });
    assert.deepEqual(
      literal.attempts.map((a) => a.error_class),
      ['connect'],
    );
    assert.match(literal.attempts[0]?.error_message ?? '', /private, loopback/);
    const plain = await deliverOnce(plainReceiver().url, production());
    assert.deepEqual(
      plain.attempts.map((a) => a.error_class),
      ['connect'],
    );
    assert.match(plain.attempts[0]?.error_message ?? '', /https/);
    assert.equal(plainReceiver().received.length, 0);
    assert.equal(tlsReceiver().received.filter((r) => r.headers['x-svc-delivery'] === literal.id).length, 0);
  });

  test('the DNS check refuses an answer with any inside address, and metadata addresses', async () => {
    const mixed: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    assert.match(String((await lookupOnce(mixed, [], 'mixed.example')).error?.message), /10\.0\.0\.7/);
    for (const address of [
      '169.254.169.254',
      '::1',
      '::ffff:127.0.0.1',
      'fd00:ec2::254',
      '100.64.0.1',
      '0.0.0.0',
    ]) {
      const only: Resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      const { error } = await lookupOnce(only, [], 'inside.example');
      assert.ok(error !== null, `${address} must be refused`);
    }
    const publicOnly: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const { error, addresses } = await lookupOnce(publicOnly, [], 'public.example');
    assert.equal(error, null);
    assert.deepEqual(addresses, [{ address: '93.184.216.34', family: 4 }]);
  });
});
