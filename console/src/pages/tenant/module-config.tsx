import { useSignal } from '@preact/signals';
import { ErrorNotice, Field } from '../../lib/ui.tsx';
import { type ConfigField, configFields, configFrom, type Draft, draftOf } from './config-schema.ts';
import { fieldErrors } from './shared.ts';

/** A field's description, then a note on how to fill it in, as sentences. */
function withNote(description: string | undefined, note: string): string {
  if (description === undefined || description === '') return note;
  return `${description}${/[.!?]$/.test(description) ? '' : '.'} ${note}`;
}

/** One field of a module's settings, drawn from its schema, with the service's message under it. */
function ConfigInput(props: {
  id: string;
  field: ConfigField;
  draft: Draft;
  error: string | undefined;
  onChange: (draft: Draft) => void;
}) {
  const { id, field, draft, error } = props;
  const described = [
    field.description === undefined ? '' : `${id}-hint`,
    error === undefined ? '' : `${id}-error`,
  ]
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    'aria-describedby': described === '' ? undefined : described,
    'aria-invalid': error === undefined ? undefined : (true as const),
  };
  const text = typeof draft === 'string' ? draft : '';
  const onText = (event: { currentTarget: { value: string } }) => props.onChange(event.currentTarget.value);
  const kind = field.field;
  const control =
    kind.kind === 'boolean' ? (
      <input
        {...common}
        type="checkbox"
        checked={draft === true}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
    ) : kind.kind === 'number' ? (
      <input {...common} type="text" inputMode="numeric" value={text} onInput={onText} />
    ) : kind.kind === 'choice' ? (
      <select {...common} value={text} onChange={onText}>
        {kind.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    ) : kind.kind === 'text' ? (
      <input {...common} type="text" value={text} onInput={onText} />
    ) : (
      <textarea {...common} rows={kind.kind === 'json' ? 6 : 4} value={text} onInput={onText} />
    );
  const hint =
    kind.kind === 'lines'
      ? withNote(field.description, 'One per line.')
      : kind.kind === 'json'
        ? withNote(field.description, 'As JSON.')
        : kind.kind === 'number' && (kind.min !== undefined || kind.max !== undefined)
          ? withNote(field.description, `From ${kind.min ?? '…'} to ${kind.max ?? '…'}.`)
          : field.description;
  return (
    <Field label={field.label} id={id} hint={hint} error={error}>
      {control}
    </Field>
  );
}

/**
 * A module's settings as a form drawn from its config schema. Saving sends the whole configuration; the
 * service validates it against the schema and its `details` are shown next to the fields they name.
 */
export function ModuleConfigForm(props: {
  module: string;
  title: string;
  schema: Record<string, unknown>;
  config: Record<string, unknown>;
  onSave: (config: Record<string, unknown>) => Promise<void>;
}) {
  const fields = configFields(props.schema);
  const drafts = useSignal<Record<string, Draft>>(
    Object.fromEntries(fields.map((f) => [f.name, draftOf(f.field, props.config[f.name])])),
  );
  const errors = useSignal<Record<string, string>>({});
  const failure = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  const saved = useSignal(false);
  if (fields.length === 0) return <p class="hint">{props.title} has no settings.</p>;
  const idOf = (name: string) => `module-${props.module}-${name}`;
  return (
    <form
      class="tenant-config"
      aria-label={`${props.title} settings`}
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        saved.value = false;
        failure.value = undefined;
        const built = configFrom(fields, drafts.value);
        if ('errors' in built) {
          errors.value = built.errors;
          return;
        }
        busy.value = true;
        try {
          await props.onSave(built.config);
          errors.value = {};
          saved.value = true;
        } catch (caught) {
          errors.value = fieldErrors(caught, '/body/config/');
          failure.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      {fields.map((field) => (
        <ConfigInput
          key={field.name}
          id={idOf(field.name)}
          field={field}
          draft={drafts.value[field.name] ?? ''}
          error={errors.value[field.name]}
          onChange={(draft) => {
            drafts.value = { ...drafts.value, [field.name]: draft };
          }}
        />
      ))}
      {failure.value === undefined ? null : <ErrorNotice error={failure.value} />}
      {saved.value ? (
        <p class="notice ok" role="status">
          {props.title} settings saved.
        </p>
      ) : null}
      <button type="submit" disabled={busy.value}>
        Save {props.title} settings
      </button>
    </form>
  );
}
