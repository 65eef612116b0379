import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { EmptyState, ErrorNotice, Field, Loading, Table, Time } from '../../lib/ui.tsx';
import type { MobileBuild } from './types.ts';

type Answer = { queued: boolean; devMode: boolean; build: MobileBuild };

/** What the service did with a build request: dispatched it, or nothing (development mode), said plainly. */
function Outcome(props: { answer: Answer }) {
  const { answer } = props;
  if (answer.devMode) {
    return (
      <div class="notice commerce-devmode" role="status">
        <strong>Development mode: no build was started.</strong> The server has no dispatch token
        (SVC_MOBILE_BUILD_DISPATCH_TOKEN), so it recorded build <code>{answer.build.id}</code> as{' '}
        <code>dev_mode</code> and sent nothing to GitHub. Set the token to build for real
        (docs/mobile-builds.md).
      </div>
    );
  }
  return (
    <div class="notice ok" role="status">
      Build <code>{answer.build.id}</code> queued: GitHub received the dispatch. Its status changes when the
      pipeline reports back.
    </div>
  );
}

/** An operator's mobile builds, newest first, and the form that asks for one. */
export function Builds(props: { operatorId: string }) {
  const answer = useSignal<Answer | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  const builds = useLoad(async () => {
    const { data } = await api.GET('/api/console/operators/{operatorId}/mobile-builds', {
      params: { path: { operatorId: props.operatorId }, query: { limit: 20 } },
    });
    return data.data;
  }, [props.operatorId]);
  const list = builds.data.value;
  return (
    <section class="commerce-panel" aria-labelledby="builds-title">
      <h2 id="builds-title">Mobile builds</h2>
      <form
        class="commerce-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          busy.value = true;
          error.value = undefined;
          answer.value = undefined;
          try {
            const { data } = await api.POST('/api/console/operators/{operatorId}/mobile-build', {
              params: { path: { operatorId: props.operatorId } },
              body: {
                platform: form.get('platform') === 'ios' ? 'ios' : 'android',
                submitToStores: form.get('submitToStores') === 'on',
              },
            });
            answer.value = data;
            await builds.reload();
          } catch (caught) {
            error.value = caught;
          } finally {
            busy.value = false;
          }
        }}
      >
        <Field label="Platform" id="build-platform">
          <select id="build-platform" name="platform">
            <option value="android">Android</option>
            <option value="ios">iOS</option>
          </select>
        </Field>
        <p>
          <label>
            <input type="checkbox" name="submitToStores" /> Submit the build to the store
          </label>
        </p>
        <button type="submit" disabled={busy.value}>
          Request a build
        </button>
      </form>
      {answer.value === undefined ? null : <Outcome answer={answer.value} />}
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      {builds.error.value === undefined ? null : <ErrorNotice error={builds.error.value} />}
      {list === undefined ? (
        builds.loading.value ? (
          <Loading what="builds" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="No builds yet.">
          <p>Request one above: the build pipeline builds the operator's app with its brand.</p>
        </EmptyState>
      ) : (
        <Table
          caption="Builds, newest first"
          hideCaption
          head={['Build', 'Platform', 'Status', 'Requested', 'Result']}
        >
          {list.map((build) => (
            <tr key={build.id}>
              <td>
                <code>{build.id}</code>
              </td>
              <td>
                {build.platform}
                {build.submitToStores ? ', to the store' : ''}
              </td>
              <td>{build.status === 'dev_mode' ? 'dev mode (not built)' : build.status}</td>
              <td>
                <Time value={build.createdAt} />
              </td>
              <td>
                {build.buildUrl === null ? (build.error ?? '—') : <a href={build.buildUrl}>Build output</a>}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
