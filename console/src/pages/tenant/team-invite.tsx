import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { ErrorNotice, Field } from '../../lib/ui.tsx';
import { fieldErrors, ROLES, type Role, roleOf, tenantParams } from './shared.ts';

/** Invites someone by email with a role (the admin role or higher may). */
export function InviteForm(props: { onInvited: () => Promise<void> }) {
  const email = useSignal('');
  const role = useSignal<Role>('developer');
  const errors = useSignal<Record<string, string>>({});
  const failure = useSignal<unknown>(undefined);
  const done = useSignal<string | undefined>(undefined);
  const busy = useSignal(false);
  return (
    <form
      class="tenant-form"
      aria-labelledby="invite-title"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        failure.value = undefined;
        done.value = undefined;
        busy.value = true;
        try {
          await api.POST('/api/console/tenants/{tenantId}/members', {
            params: tenantParams(),
            body: { email: email.value.trim(), role: role.value },
          });
          done.value = `Invited ${email.value.trim()} as ${role.value}.`;
          email.value = '';
          errors.value = {};
          await props.onInvited();
        } catch (caught) {
          errors.value = fieldErrors(caught, '/body/');
          failure.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="invite-title">Invite someone</h2>
      <Field label="Email" id="invite-email" error={errors.value.email}>
        <input
          id="invite-email"
          type="email"
          autoComplete="off"
          value={email.value}
          onInput={(event) => {
            email.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="Role" id="invite-role" error={errors.value.role}>
        <select
          id="invite-role"
          value={role.value}
          onChange={(event) => {
            role.value = roleOf(event.currentTarget.value);
          }}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </Field>
      {failure.value === undefined ? null : <ErrorNotice error={failure.value} />}
      {done.value === undefined ? null : (
        <p class="notice ok" role="status">
          {done.value}
        </p>
      )}
      <button type="submit" disabled={busy.value}>
        Send invitation
      </button>
    </form>
  );
}
