import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line of a chart: its name and a value per bucket (null: no value). */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  stroke: string;
}

/**
 * A line chart of counts over time with uPlot, its time axis in `timezone` (uPlot sets its elements'
 * sizes from script, through the CSSOM, which the console's `style-src 'self'` allows). Loaded with the
 * analytics page only: uPlot and its CSS are in that page's chunk.
 */
export function CountsChart(props: {
  label: string;
  times: number[];
  series: ChartSeries[];
  timezone: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 280,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), props.timezone),
        scales: { y: { range: (_self, _min, max) => [0, Math.max(1, max)] } },
        series: [
          { label: `Time (${props.timezone})` },
          ...props.series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2 })),
        ],
        axes: [{}, { label: 'Count' }],
      },
      [props.times, ...props.series.map((s) => s.values)],
      element,
    );
    return () => chart.destroy();
  }, [props.times, props.series, props.timezone]);
  return <div class="commerce-chart" role="img" aria-label={props.label} ref={host} />;
}
