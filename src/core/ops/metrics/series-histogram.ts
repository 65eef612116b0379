import type { Metric, Registry } from 'prom-client';

/** One label set's counts: what an observation changes, with nothing allocated. */
export class HistogramSeries {
  /** Observations per bucket, not cumulative (the last slot: above every bound). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

interface ExportedValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A Prometheus histogram for a hot path, served by a prom-client registry as its own `Histogram` would be
 * (the same lines: `_bucket` per bound and `+Inf`, `_sum`, `_count`). The caller keeps the series of each
 * label set (`series`, made once), so an observation is a bucket search and three additions. prom-client's
 * own `observe` rebuilds and hashes the label set on every call: about 1.5 µs, a tenth of a request.
 */
export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    // The registry asks each metric for `get()` (and `reset()`); it needs no more of a prom-client class.
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `labels` (made on first use; the caller keeps it). */
  series(labels: Readonly<Record<string, string>>): HistogramSeries {
    const key = JSON.stringify(labels);
    let series = this.all.get(key);
    if (series === undefined) {
      series = new HistogramSeries(this.bounds, { ...labels });
      this.all.set(key, series);
    }
    return series;
  }

  async get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: ExportedValue[];
  }> {
    const values: ExportedValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const series of this.all.values()) {
      let below = 0;
      this.bounds.forEach((bound, i) => {
        below += series.counts[i] as number;
        values.push({ metricName: bucket, labels: { le: bound, ...series.labels }, value: below });
      });
      values.push({ metricName: bucket, labels: { le: '+Inf', ...series.labels }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Every series back to zero (prom-client's `resetMetrics`), in place: callers keep theirs. */
  reset(): void {
    for (const series of this.all.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
