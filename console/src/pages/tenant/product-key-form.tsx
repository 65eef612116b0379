import { useSignal } from '@preact/signals';
import { ErrorNotice, Field } from '../../lib/ui.tsx';
import { fieldErrors, lines } from './shared.ts';

export interface ProductKeyInput {
  name?: string;
  allowedOrigins: string[];
  rateLimitPerMinute?: number;
}

/** `/body/allowedOrigins/2` is the third line of the origins box. */
const lineOf = (deeper: string[]) => ` (line ${Number(deeper[0]) + 1})`;

/**
 * A product key's name (when creating), allowed origins (one per line) and rate limit. `onSubmit` calls the
 * API; a refusal's details are shown next to the fields they name.
 */
export function ProductKeyForm(props: {
  mode: 'create' | 'edit';
  idPrefix: string;
  initial?: { name: string; allowedOrigins: string[]; rateLimitPerMinute: number };
  onSubmit: (input: ProductKeyInput) => Promise<void>;
  onCancel?: () => void;
}) {
  const name = useSignal(props.initial?.name ?? '');
  const origins = useSignal(props.initial?.allowedOrigins.join('\n') ?? '');
  const rate = useSignal(props.initial === undefined ? '' : String(props.initial.rateLimitPerMinute));
  const errors = useSignal<Record<string, string>>({});
  const failure = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  const id = (field: string) => `${props.idPrefix}-${field}`;
  const label = props.mode === 'create' ? 'Create product key' : `Save ${props.initial?.name ?? ''}`.trim();
  return (
    <form
      noValidate
      aria-label={
        props.mode === 'create' ? 'New product key' : `Edit ${props.initial?.name ?? 'product key'}`
      }
      onSubmit={async (event) => {
        event.preventDefault();
        failure.value = undefined;
        const rateText = rate.value.trim();
        const input: ProductKeyInput = {
          allowedOrigins: lines(origins.value),
          ...(props.mode === 'create' ? { name: name.value.trim() } : {}),
          ...(rateText === '' ? {} : { rateLimitPerMinute: Number(rateText) }),
        };
        if (rateText !== '' && !Number.isInteger(input.rateLimitPerMinute)) {
          errors.value = { rateLimitPerMinute: 'must be a whole number' };
          return;
        }
        busy.value = true;
        try {
          await props.onSubmit(input);
          errors.value = {};
          if (props.mode === 'create') {
            name.value = '';
            origins.value = '';
            rate.value = '';
          }
        } catch (caught) {
          errors.value = fieldErrors(caught, '/body/', lineOf);
          failure.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      {props.mode === 'create' ? (
        <Field label="Name" id={id('name')} hint="Where it is used, e.g. web shop" error={errors.value.name}>
          <input
            id={id('name')}
            value={name.value}
            aria-describedby={`${id('name')}-hint`}
            onInput={(event) => {
              name.value = event.currentTarget.value;
            }}
          />
        </Field>
      ) : null}
      <Field
        label="Allowed origins"
        id={id('origins')}
        hint="One per line, e.g. https://shop.example.com or https://*.example.com; none = any origin"
        error={errors.value.allowedOrigins}
      >
        <textarea
          id={id('origins')}
          rows={3}
          value={origins.value}
          aria-describedby={`${id('origins')}-hint`}
          onInput={(event) => {
            origins.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field
        label="Rate limit per minute"
        id={id('rate')}
        hint="Requests per minute one client address may make (default 600)"
        error={errors.value.rateLimitPerMinute}
      >
        <input
          id={id('rate')}
          inputMode="numeric"
          value={rate.value}
          aria-describedby={`${id('rate')}-hint`}
          onInput={(event) => {
            rate.value = event.currentTarget.value;
          }}
        />
      </Field>
      {failure.value === undefined ? null : <ErrorNotice error={failure.value} />}
      <button type="submit" disabled={busy.value}>
        {label}
      </button>{' '}
      {props.onCancel === undefined ? null : (
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      )}
    </form>
  );
}
