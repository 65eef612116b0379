import { useSignal } from '@preact/signals';
import type { components } from '@svc/client';
import { api } from '../../lib/api.ts';
import { ErrorNotice, Field, Table } from '../../lib/ui.tsx';
import type { AnalyticsView } from './analytics-controls.tsx';

type FunnelResult = components['schemas']['AnalyticsFunnelResult'];
const MAX_STEPS = 10;

function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`;
}

function Result(props: { result: FunnelResult }) {
  const first = props.result.steps[0]?.actors ?? 0;
  return (
    <Table
      caption="Funnel: people who reached each step in order"
      head={['Step', 'People', 'From the first step', 'From the previous step']}
    >
      {props.result.steps.map((step, i) => (
        <tr key={i}>
          <td>
            {i + 1}. {step.event}
          </td>
          <td>
            {step.actors}{' '}
            <progress class="commerce-bar" max={Math.max(first, 1)} value={step.actors} aria-hidden="true" />
          </td>
          <td>{percent(step.conversionFromFirst)}</td>
          <td>{percent(step.conversionFromPrevious)}</td>
        </tr>
      ))}
    </Table>
  );
}

/** An ordered funnel by unique person over the page's range and time zone, with a conversion window. */
export function Funnel(props: { view: AnalyticsView }) {
  const steps = useSignal<string[]>(['', '']);
  const windowHours = useSignal('24');
  const result = useSignal<FunnelResult | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  const setStep = (index: number, value: string) => {
    steps.value = steps.value.map((step, i) => (i === index ? value : step));
  };
  return (
    <section class="commerce-panel" aria-labelledby="analytics-funnel-title">
      <h2 id="analytics-funnel-title">Funnel</h2>
      <form
        class="commerce-form"
        onSubmit={async (event) => {
          event.preventDefault();
          busy.value = true;
          error.value = undefined;
          try {
            const hours = Number(windowHours.value);
            if (!Number.isFinite(hours) || hours <= 0)
              throw new Error('The window is a number of hours, e.g. 24');
            const named = steps.value.map((step) => step.trim()).filter((step) => step !== '');
            if (named.length < 2) throw new Error('Name at least two steps (event names), in order');
            const { data } = await api.POST('/v1/analytics/funnel', {
              body: {
                steps: named.map((name) => ({ event: name })),
                dateRange: { preset: props.view.preset },
                timezone: props.view.timezone,
                windowSeconds: Math.round(hours * 3600),
              },
            });
            result.value = data;
          } catch (caught) {
            error.value = caught;
          } finally {
            busy.value = false;
          }
        }}
      >
        <p class="hint">
          The people who did each event after the one before, within the window, over the range chosen above.
        </p>
        {steps.value.map((step, i) => (
          <Field label={`Step ${i + 1} event`} id={`funnel-step-${i}`} key={i}>
            <input
              id={`funnel-step-${i}`}
              value={step}
              onInput={(event) => setStep(i, event.currentTarget.value)}
            />
          </Field>
        ))}
        <p>
          <button
            type="button"
            class="secondary"
            disabled={steps.value.length >= MAX_STEPS}
            onClick={() => {
              steps.value = [...steps.value, ''];
            }}
          >
            Add a step
          </button>{' '}
          <button
            type="button"
            class="secondary"
            disabled={steps.value.length <= 2}
            onClick={() => {
              steps.value = steps.value.slice(0, -1);
            }}
          >
            Remove the last step
          </button>
        </p>
        <Field
          label="Window (hours)"
          id="funnel-window"
          hint="Every later step must happen within this long after the first"
        >
          <input
            id="funnel-window"
            inputMode="decimal"
            value={windowHours.value}
            onInput={(event) => {
              windowHours.value = event.currentTarget.value;
            }}
          />
        </Field>
        <button type="submit" disabled={busy.value}>
          Run the funnel
        </button>
      </form>
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      {result.value === undefined ? null : <Result result={result.value} />}
    </section>
  );
}
