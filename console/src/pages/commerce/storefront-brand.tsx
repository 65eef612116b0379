import { useSignal } from '@preact/signals';
import { ErrorNotice, Field } from '../../lib/ui.tsx';
import { fieldErrors, optional } from './form-errors.ts';
import type { Storefront } from './types.ts';

type Brand = Storefront['brand'];
type Colors = NonNullable<Brand['colors']>;
const COLORS: (keyof Colors)[] = ['primary', 'secondary', 'accent', 'background', 'text'];
const TEXTS = [
  ['name', 'Name'],
  ['slogan', 'Slogan'],
  ['shortDescription', 'Short description'],
  ['logoUrl', 'Logo URL'],
  ['coverImageUrl', 'Cover image URL'],
] as const;

/** The brand as the form holds it: the fields edited here, over what the storefront has (links kept). */
function brandOf(form: FormData, current: Brand): Brand {
  const brand: Brand = { ...(current.links === undefined ? {} : { links: current.links }) };
  for (const [key] of TEXTS) {
    const value = optional(form.get(key));
    if (value !== undefined) brand[key] = value;
  }
  const colors: Colors = {};
  for (const key of COLORS) {
    const value = optional(form.get(`color-${key}`));
    if (value !== undefined) colors[key] = value;
  }
  if (Object.keys(colors).length > 0) brand.colors = colors;
  return brand;
}

/** Edit the storefront's brand; `save` puts the whole storefront with this brand. */
export function BrandForm(props: { brand: Brand; save: (brand: Brand) => Promise<void> }) {
  const error = useSignal<unknown>(undefined);
  const saved = useSignal(false);
  const busy = useSignal(false);
  const errors = fieldErrors(error.value);
  return (
    <form
      class="commerce-form"
      aria-labelledby="brand-title"
      onSubmit={async (event) => {
        event.preventDefault();
        busy.value = true;
        saved.value = false;
        error.value = undefined;
        try {
          await props.save(brandOf(new FormData(event.currentTarget), props.brand));
          saved.value = true;
        } catch (caught) {
          error.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="brand-title">Brand</h2>
      <p class="hint">
        What the storefront page and the apps show (GET /api/public/brand). Empty fields are left out.
      </p>
      {TEXTS.map(([key, label]) => (
        <Field label={label} id={`brand-${key}`} key={key} error={errors[`brand.${key}`]}>
          <input id={`brand-${key}`} name={key} defaultValue={props.brand[key] ?? ''} />
        </Field>
      ))}
      <fieldset class="commerce-fieldset">
        <legend>Colors (#RRGGBB)</legend>
        {COLORS.map((key) => (
          <Field label={key} id={`brand-color-${key}`} key={key} error={errors[`brand.colors.${key}`]}>
            <input
              id={`brand-color-${key}`}
              name={`color-${key}`}
              defaultValue={props.brand.colors?.[key] ?? ''}
            />
          </Field>
        ))}
      </fieldset>
      <button type="submit" disabled={busy.value}>
        Save brand
      </button>
      {saved.value ? (
        <p class="notice ok" role="status">
          Brand saved: public answers show it within a second.
        </p>
      ) : null}
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
    </form>
  );
}
