import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { EndpointAgents } from '../worker/agents.ts';

const lookup = (() => {}) as unknown as import('node:net').LookupFunction;

/** Kept-alive connections per endpoint (worker/agents.ts): one agent pair each, bounded in number. */
describe('webhook endpoint agents', () => {
  test('each endpoint has agents of its own, kept alive and capped at its concurrency', () => {
    const agents = new EndpointAgents({ lookup, maxSockets: 3 });
    const a = agents.of('t1\u0000e1');
    const b = agents.of('t1\u0000e2');
    assert.equal(agents.of('t1\u0000e1'), a, 'the same endpoint gets the same agents');
    assert.notEqual(a.http, b.http);
    assert.notEqual(a.https, b.https);
    assert.equal(a.http.maxSockets, 3);
    assert.equal(a.https.maxSockets, 3);
    assert.equal((a.http as unknown as { keepAlive: boolean }).keepAlive, true);
    agents.destroy();
  });

  test('past maxEndpoints the least recently used endpoint is let go; used ones stay', () => {
    const agents = new EndpointAgents({ lookup, maxSockets: 1, maxEndpoints: 2 });
    const first = agents.of('e1');
    const second = agents.of('e2');
    agents.of('e1'); // e1 is now the most recently used
    agents.of('e3'); // lets e2 go
    assert.equal(agents.of('e1'), first);
    assert.notEqual(agents.of('e2'), second, 'e2 was let go and gets new agents');
    agents.destroy();
  });

  test('a request goes out on the endpoint agent and its connection is reused', async () => {
    const sockets = new Set<unknown>();
    const server = http.createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agents = new EndpointAgents({
      lookup: (host, options, callback) =>
        import('node:dns').then((dns) => dns.lookup(host, options, callback)),
      maxSockets: 1,
    });
    try {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = http.request(
            { host: '127.0.0.1', port, method: 'POST', agent: agents.of('e1').http },
            (res) => {
              res.resume();
              res.on('end', resolve);
            },
          );
          req.on('error', reject);
          req.end('{}');
        });
      }
      assert.equal(sockets.size, 1, 'one kept-alive connection served every request');
    } finally {
      agents.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
