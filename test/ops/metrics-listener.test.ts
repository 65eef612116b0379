import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { createRuntime, openDatabase } from '../../src/runtime.ts';
import { testConfig } from '../helper.ts';
import {
  familiesOf,
  type MetricsInstance,
  metricsSettings,
  scrape,
  startMetricsInstance,
} from './metrics-support.ts';

const DASHBOARD = path.resolve(import.meta.dirname, '../../deploy/grafana-dashboard.json');

interface Panel {
  title: string;
  targets?: { expr?: string }[];
}

describe('metrics listener: settings, binding, and the Grafana dashboard against a live scrape', () => {
  let s: MetricsInstance;

  before(async () => {
    s = await startMetricsInstance();
  });
  after(async () => {
    await s?.close();
  });

  test('SVC_METRICS_PORT unset: no listener; set: loopback unless SVC_METRICS_HOST says otherwise', async () => {
    assert.equal(metricsSettings({}), undefined);
    assert.deepEqual(metricsSettings({ SVC_METRICS_PORT: '9464' }), { port: 9464, host: '127.0.0.1' });
    assert.deepEqual(metricsSettings({ SVC_METRICS_PORT: '9464', SVC_METRICS_HOST: '0.0.0.0' }), {
      port: 9464,
      host: '0.0.0.0',
    });
    assert.throws(() => metricsSettings({ SVC_METRICS_PORT: 'ninety' }), ConfigError);

    const config = testConfig();
    assert.equal(config.metrics, undefined, 'tests run without the listener by default');
    const db = await openDatabase(config, { inMemory: true });
    const runtime = await createRuntime(config, { db, workers: false });
    try {
      assert.equal(runtime.metrics, undefined, 'no listener');
      assert.equal(runtime.app.services.metrics, undefined, 'nothing is timed or counted');
      assert.equal((await runtime.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    } finally {
      await runtime.close();
      await db.close();
    }
  });

  test('the listener binds the configured host only', async () => {
    const other = await startMetricsInstance({ metrics: { port: 0, host: '127.0.0.2' } });
    try {
      const url = new URL(other.metricsUrl);
      assert.equal(url.hostname, '127.0.0.2');
      assert.equal((await fetch(`${other.metricsUrl}/metrics`)).status, 200);
      await assert.rejects(fetch(`http://127.0.0.1:${url.port}/metrics`), 'not on another address');
    } finally {
      await other.close();
    }
  });

  test('every metric each dashboard panel queries is in a live /metrics scrape', async () => {
    await s.app.inject({ method: 'GET', url: '/healthz' });
    const text = await scrape(s.metricsUrl);
    const families = familiesOf(text);
    const histograms = new Set(
      text
        .split('\n')
        .filter((line) => line.startsWith('# TYPE ') && line.endsWith(' histogram'))
        .map((line) => line.split(' ')[2]),
    );
    const known = (name: string) => {
      if (families.has(name)) return true;
      const base = name.replace(/_(bucket|sum|count)$/, '');
      return base !== name && histograms.has(base);
    };
    const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
    assert.ok(dashboard.panels.length >= 10, 'a dashboard with panels');
    const unknown: string[] = [];
    for (const panel of dashboard.panels) {
      const exprs = (panel.targets ?? []).map((t) => t.expr ?? '');
      assert.ok(exprs.length > 0 && exprs.every((e) => e !== ''), `${panel.title}: a query`);
      const names = exprs.flatMap((e) => [...e.matchAll(/\bsvc_[a-z0-9_]+/g)].map((m) => m[0]));
      assert.ok(names.length > 0, `${panel.title}: names an svc_ metric`);
      for (const name of names) if (!known(name)) unknown.push(`${panel.title}: ${name}`);
    }
    assert.deepEqual(unknown, [], 'metrics a panel queries that /metrics does not have');
  });
});
