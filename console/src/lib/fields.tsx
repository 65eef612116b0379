import type { Signal } from '@preact/signals';
import { Field } from './ui.tsx';

/** The ids that describe a control: its hint and its error, when it has them. */
function describedBy(id: string, hint: string | undefined, error: string | undefined): string | undefined {
  const ids = [hint === undefined ? '' : `${id}-hint`, error === undefined ? '' : `${id}-error`];
  const joined = ids.filter(Boolean).join(' ');
  return joined === '' ? undefined : joined;
}

/** A labelled input (text, a number or a local date-time) whose value is the signal `value`, set as the user types. */
export function TextField(props: {
  label: string;
  id: string;
  value: Signal<string>;
  type?: 'text' | 'number' | 'datetime-local';
  hint?: string;
  error?: string | undefined;
  placeholder?: string;
  maxLength?: number;
  /** The id of a `<datalist>` of suggestions. */
  list?: string;
}) {
  const { id, value } = props;
  return (
    <Field label={props.label} id={id} hint={props.hint} error={props.error}>
      <input
        id={id}
        type={props.type ?? 'text'}
        value={value.value}
        list={props.list}
        aria-describedby={describedBy(id, props.hint, props.error)}
        placeholder={props.placeholder}
        maxLength={props.maxLength}
        onInput={(event) => {
          value.value = event.currentTarget.value;
        }}
      />
    </Field>
  );
}

/** One choice of a `SelectField`: a value and what the user reads (the value itself when no label). */
export type Choice = string | { value: string; label: string };

/** A labelled select; `onChange` gets the chosen value (set a signal, or the query string at once). */
export function SelectField(props: {
  label: string;
  id: string;
  value: string;
  choices: readonly Choice[];
  onChange: (value: string) => void;
  hint?: string;
}) {
  const { id } = props;
  return (
    <Field label={props.label} id={id} hint={props.hint}>
      <select
        id={id}
        value={props.value}
        aria-describedby={describedBy(id, props.hint, undefined)}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      >
        {props.choices.map((choice) => {
          const { value, label } = typeof choice === 'string' ? { value: choice, label: choice } : choice;
          return (
            <option value={value} key={value}>
              {label}
            </option>
          );
        })}
      </select>
    </Field>
  );
}

/**
 * "From" and "Until" local date-times (ids `<id>-since`, `<id>-until`) of a filter's time range; the page
 * turns them into ISO times when it applies the filter.
 */
export function DateRange(props: {
  id: string;
  since: Signal<string>;
  until: Signal<string>;
  untilHint?: string;
}) {
  return (
    <>
      <TextField label="From" id={`${props.id}-since`} type="datetime-local" value={props.since} />
      <TextField
        label="Until"
        id={`${props.id}-until`}
        type="datetime-local"
        value={props.until}
        hint={props.untilHint}
      />
    </>
  );
}
