import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { ErrorNotice, Loading } from '../../lib/ui.tsx';

/** The event types the modules can emit, by module, from the module catalog. */
export function useEventCatalog() {
  return useLoad(async () => {
    const { data } = await api.GET('/v1/modules/catalog', { params: { query: { limit: 100 } } });
    return data.data
      .filter((module) => module.eventTypes.length > 0)
      .map((module) => ({ name: module.name, title: module.title, eventTypes: module.eventTypes }));
  }, []);
}

/**
 * Which events an endpoint takes: every one (null), or the types checked here, grouped by the module that
 * emits them. Types the endpoint already has that the catalog does not list (a `room.*` prefix) stay
 * listed, so editing never drops one silently.
 */
export function EventTypePicker(props: {
  id: string;
  value: string[] | null;
  onChange: (value: string[] | null) => void;
}) {
  const catalog = useEventCatalog();
  const chosen = props.value ?? [];
  const modules = catalog.data.value ?? [];
  const known = new Set(modules.flatMap((m) => m.eventTypes));
  const extra = chosen.filter((type) => !known.has(type));
  const toggle = (type: string, on: boolean) =>
    props.onChange(on ? [...chosen, type] : chosen.filter((t) => t !== type));
  const box = (type: string) => (
    <label class="webhooks-check" key={type}>
      <input
        type="checkbox"
        checked={chosen.includes(type)}
        disabled={props.value === null}
        onChange={(event) => toggle(type, event.currentTarget.checked)}
      />{' '}
      <code>{type}</code>
    </label>
  );
  return (
    <fieldset class="webhooks-types" id={props.id}>
      <legend>Event types</legend>
      <label class="webhooks-check">
        <input
          type="radio"
          name={`${props.id}-mode`}
          checked={props.value === null}
          onChange={() => props.onChange(null)}
        />{' '}
        All events, including types added later
      </label>
      <label class="webhooks-check">
        <input
          type="radio"
          name={`${props.id}-mode`}
          checked={props.value !== null}
          onChange={() => props.onChange(chosen)}
        />{' '}
        Only the types checked below
      </label>
      {catalog.error.value === undefined ? null : <ErrorNotice error={catalog.error.value} />}
      {catalog.loading.value && catalog.data.value === undefined ? <Loading what="event types" /> : null}
      {modules.map((module) => (
        <fieldset class="webhooks-type-group" key={module.name}>
          <legend>{module.title}</legend>
          {module.eventTypes.map(box)}
        </fieldset>
      ))}
      {extra.length === 0 ? null : (
        <fieldset class="webhooks-type-group">
          <legend>Other types and prefixes</legend>
          {extra.map(box)}
        </fieldset>
      )}
    </fieldset>
  );
}

/** A secret shown once (after create or rotate), with a copy button. */
export function SecretOnce(props: { secret: string; onDone: () => void }) {
  return (
    <div class="notice ok webhooks-secret" role="status">
      <p>
        <strong>The signing secret, shown this once.</strong> Copy it into your receiver's configuration now:
        the console cannot show it again.
      </p>
      <div class="field">
        <label for="webhook-secret-once">Signing secret</label>
        <input id="webhook-secret-once" class="webhooks-secret-value" readOnly value={props.secret} />
      </div>
      <button
        type="button"
        class="secondary"
        onClick={() => void navigator.clipboard?.writeText(props.secret)}
      >
        Copy secret
      </button>{' '}
      <button type="button" class="secondary" onClick={props.onDone}>
        I have saved it
      </button>
    </div>
  );
}
