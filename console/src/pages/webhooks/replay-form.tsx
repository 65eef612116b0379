import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { ErrorNotice, Field } from '../../lib/ui.tsx';
import { isoOfLocal, localOfIso } from './types.ts';

const DAY_MS = 86_400_000;

/** Sends every dead-lettered delivery of the endpoint created since a time again (after an outage). */
export function ReplayForm(props: { webhookId: string; disabled: boolean; onReplayed: () => void }) {
  const since = useSignal(localOfIso(new Date(Date.now() - DAY_MS).toISOString()));
  const result = useSignal<number | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  return (
    <form
      class="webhooks-form"
      aria-labelledby="replay-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const iso = isoOfLocal(since.value);
        if (iso === undefined) return;
        error.value = undefined;
        result.value = undefined;
        busy.value = true;
        try {
          const { data } = await api.POST('/v1/webhooks/{webhookId}/replay', {
            params: { path: { webhookId: props.webhookId } },
            body: { since: iso },
          });
          result.value = data.queued;
          props.onReplayed();
        } catch (caught) {
          error.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="replay-title">Replay dead-lettered deliveries</h2>
      <p class="hint">
        After your receiver was down: every delivery of this endpoint that gave up (dead-lettered) since the
        time below is sent again, with the same id and body. Safe to repeat.
      </p>
      <Field label="Dead-lettered deliveries created since" id="replay-since">
        <input
          id="replay-since"
          type="datetime-local"
          required
          value={since.value}
          onInput={(event) => {
            since.value = event.currentTarget.value;
          }}
        />
      </Field>
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      {result.value === undefined ? null : (
        <p class="notice ok" role="status">
          {result.value === 0
            ? 'Nothing to replay: no dead-lettered delivery since that time.'
            : `Queued ${result.value} ${result.value === 1 ? 'delivery' : 'deliveries'} to be sent again.`}
        </p>
      )}
      <button type="submit" disabled={busy.value || props.disabled}>
        Replay dead-lettered
      </button>
      {props.disabled ? <span class="hint"> Enable the endpoint first.</span> : null}
    </form>
  );
}
