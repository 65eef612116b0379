import { useSignal } from '@preact/signals';
import type { components } from '@svc/client';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { ConfirmButton, EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import { ROLES, type Role, roleOf, tenantParams } from './shared.ts';
import { InviteForm } from './team-invite.tsx';

type TeamEntry = components['schemas']['TeamEntry'];

async function allTeam(): Promise<TeamEntry[]> {
  const team: TeamEntry[] = [];
  for await (const entry of api.paginate('/api/console/tenants/{tenantId}/members', {
    params: { ...tenantParams(), query: { limit: 100 } },
  })) {
    team.push(entry);
  }
  return team;
}

/** A member's role as a select with its own save button, so a change is never made by a stray key press. */
function RoleEditor(props: {
  entry: TeamEntry & { userId: string };
  who: string;
  onChanged: () => Promise<void>;
}) {
  const role = useSignal<Role>(props.entry.role);
  const failure = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  const id = `role-${props.entry.userId}`;
  return (
    <form
      class="tenant-inline"
      onSubmit={async (event) => {
        event.preventDefault();
        busy.value = true;
        failure.value = undefined;
        try {
          await api.PATCH('/api/console/tenants/{tenantId}/members/{userId}', {
            params: { path: { ...tenantParams().path, userId: props.entry.userId } },
            body: { role: role.value },
          });
          await props.onChanged();
        } catch (caught) {
          failure.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <label class="visually-hidden" for={id}>
        Role of {props.who}
      </label>
      <select
        id={id}
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
      </select>{' '}
      <button type="submit" class="secondary" disabled={busy.value || role.value === props.entry.role}>
        Change role of {props.who}
      </button>
      {failure.value === undefined ? null : <ErrorNotice error={failure.value} />}
    </form>
  );
}

function TeamRow(props: { entry: TeamEntry; onChanged: () => Promise<void> }) {
  const { entry } = props;
  const who = entry.name ?? entry.email ?? entry.userId ?? 'member';
  const userId = entry.userId;
  const invitationId = entry.invitationId;
  return (
    <tr>
      <td>
        {entry.name === null ? null : <div>{entry.name}</div>}
        {entry.email === null ? null : <div class="hint">{entry.email}</div>}
      </td>
      <td>{entry.status === 'active' ? 'Member' : 'Invited'}</td>
      <td>
        {entry.status === 'active' && userId !== null ? (
          <RoleEditor entry={{ ...entry, userId }} who={who} onChanged={props.onChanged} />
        ) : (
          entry.role
        )}
      </td>
      <td>
        <Time value={entry.createdAt} />
      </td>
      <td>
        {userId !== null ? (
          <ConfirmButton
            label={`Remove ${who}`}
            confirm={`Remove ${who} from this tenant? They lose access at once.`}
            onConfirm={async () => {
              await api.DELETE('/api/console/tenants/{tenantId}/members/{userId}', {
                params: { path: { ...tenantParams().path, userId } },
              });
              await props.onChanged();
            }}
          />
        ) : invitationId !== null ? (
          <ConfirmButton
            label={`Withdraw invitation of ${who}`}
            confirm={`Withdraw the invitation of ${who}?`}
            onConfirm={async () => {
              await api.DELETE('/api/console/tenants/{tenantId}/invitations/{invitationId}', {
                params: { path: { ...tenantParams().path, invitationId } },
              });
              await props.onChanged();
            }}
          />
        ) : null}
      </td>
    </tr>
  );
}

/** The tenant's members and pending invitations: invite by email with a role, change roles, remove. */
export function TeamPage() {
  const team = useLoad(allTeam, []);
  const list = team.data.value;
  return (
    <Page title="Team">
      <p class="hint">
        Roles: owner &gt; admin &gt; developer &gt; viewer. Admins manage the team and modules, developers
        manage keys and data, viewers read. An invitation becomes a membership when someone signs in with that
        verified email.
      </p>
      {team.error.value === undefined ? null : <ErrorNotice error={team.error.value} />}
      {list === undefined ? (
        team.loading.value ? (
          <Loading what="the team" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="Nobody is on this team yet.">
          <p>Invite someone below by email.</p>
        </EmptyState>
      ) : (
        <Table caption="Members and invitations" head={['Who', 'Status', 'Role', 'Since', '']}>
          {list.map((entry) => (
            <TeamRow key={entry.userId ?? entry.invitationId} entry={entry} onChanged={team.reload} />
          ))}
        </Table>
      )}
      <InviteForm onInvited={team.reload} />
    </Page>
  );
}
