import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { SeriesHistogram } from '../../src/core/ops/metrics/series-histogram.ts';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** On a bound, between bounds, below the first, above the last, zero: every edge of the bucket search. */
const VALUES = [0, 0.001, 0.0011, 0.003, 0.5, 0.49999, 2.5, 10, 11, 0.0009];

function both() {
  const promRegistry = new Registry();
  const ownRegistry = new Registry();
  const prom = new Histogram({
    name: 'svc_test_seconds',
    help: 'a "test" histogram',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: BOUNDS,
    registers: [promRegistry],
  });
  const own = new SeriesHistogram('svc_test_seconds', 'a "test" histogram', BOUNDS, ownRegistry);
  return { prom, own, promRegistry, ownRegistry };
}

describe('SeriesHistogram', () => {
  test('serves the lines prom-client’s Histogram serves for the same observations', async () => {
    const { prom, own, promRegistry, ownRegistry } = both();
    for (const [i, value] of VALUES.entries()) {
      // Two series, and a label value that needs escaping.
      const labels = { method: i % 2 === 0 ? 'GET' : 'POST', route: '/v1/"rooms"\\x', status_class: '2xx' };
      prom.labels(labels).observe(value);
      own.series(labels).observe(value);
    }
    const expected = await promRegistry.metrics();
    assert.match(expected, /svc_test_seconds_bucket\{le="0.001",method="GET"/);
    assert.equal(await ownRegistry.metrics(), expected);
  });

  test('a series is one per label set, and reset zeroes it in place', async () => {
    const { own, ownRegistry } = both();
    const labels = { method: 'GET', route: '/v1/me', status_class: '2xx' };
    const series = own.series(labels);
    assert.equal(own.series({ ...labels }), series);
    series.observe(0.2);
    own.reset();
    series.observe(3);
    const text = await ownRegistry.metrics();
    assert.match(
      text,
      /svc_test_seconds_bucket\{le="2.5",method="GET",route="\/v1\/me",status_class="2xx"\} 0/,
    );
    assert.match(
      text,
      /svc_test_seconds_bucket\{le="5",method="GET",route="\/v1\/me",status_class="2xx"\} 1/,
    );
    assert.match(text, /svc_test_seconds_sum\{method="GET",route="\/v1\/me",status_class="2xx"\} 3/);
    assert.match(text, /svc_test_seconds_count\{method="GET",route="\/v1\/me",status_class="2xx"\} 1/);
  });
});
