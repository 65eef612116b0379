import { useSignal } from '@preact/signals';
import type { components } from '@svc/client';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { ConfirmButton, EmptyState, ErrorNotice, Loading, Page } from '../../lib/ui.tsx';
import { ModuleConfigForm } from './module-config.tsx';
import { tenantParams } from './shared.ts';

type ModuleSetting = components['schemas']['ModuleSetting'];

/** Sets a module's enablement and configuration (the service answers with the stored setting). */
async function putModule(module: string, enabled: boolean, config: Record<string, unknown>) {
  const { data } = await api.PUT('/api/console/tenants/{tenantId}/modules/{module}', {
    params: { path: { ...tenantParams().path, module } },
    body: { enabled, config },
  });
  return data;
}

function ModuleRow(props: { setting: ModuleSetting; onChange: (next: ModuleSetting) => void }) {
  const { setting } = props;
  const open = useSignal(false);
  const failure = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  const panelId = `module-${setting.module}-settings`;
  const enable = async () => {
    busy.value = true;
    failure.value = undefined;
    try {
      props.onChange(await putModule(setting.module, true, setting.config));
    } catch (caught) {
      failure.value = caught;
    } finally {
      busy.value = false;
    }
  };
  return (
    <li class="tenant-module" aria-labelledby={`module-${setting.module}-title`}>
      <div class="tenant-module-head">
        <h2 id={`module-${setting.module}-title`}>
          {setting.title} <code>{setting.module}</code>
        </h2>
        <span class={setting.enabled ? 'tenant-on' : 'tenant-off'}>
          {setting.enabled ? 'Enabled' : 'Disabled'}
        </span>
        {setting.enabled ? (
          <ConfirmButton
            label={`Disable ${setting.title}`}
            confirm={`Disable ${setting.title}? Its routes, actions and realtime features answer module_disabled until it is enabled again.`}
            onConfirm={async () => props.onChange(await putModule(setting.module, false, setting.config))}
          />
        ) : (
          <button type="button" disabled={busy.value} onClick={enable}>
            Enable {setting.title}
          </button>
        )}
        <button
          type="button"
          class="secondary"
          aria-expanded={open.value}
          aria-controls={panelId}
          onClick={() => {
            open.value = !open.value;
          }}
        >
          {open.value ? 'Hide' : 'Show'} {setting.title} settings
        </button>
      </div>
      {failure.value === undefined ? null : <ErrorNotice error={failure.value} />}
      <div id={panelId} hidden={!open.value}>
        {open.value ? (
          <ModuleConfigForm
            module={setting.module}
            title={setting.title}
            schema={setting.configSchema}
            config={setting.config}
            onSave={async (config) =>
              props.onChange(await putModule(setting.module, setting.enabled, config))
            }
          />
        ) : null}
      </div>
    </li>
  );
}

/** Every module of the service: turn each on or off for the tenant, and edit its settings. */
export function ModulesPage() {
  const modules = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/modules', {
      params: { ...tenantParams(), query: { limit: 100 } },
    });
    return data.data;
  }, []);
  const list = modules.data.value;
  const replace = (next: ModuleSetting) => {
    modules.data.value = modules.data.value?.map((m) => (m.module === next.module ? next : m));
  };
  return (
    <Page title="Modules">
      <p class="hint">
        A disabled module's API answers <code>module_disabled</code> for this tenant. Settings are checked
        against the module's schema when you save; changing them needs the admin role.
      </p>
      {modules.error.value === undefined ? null : <ErrorNotice error={modules.error.value} />}
      {list === undefined ? (
        modules.loading.value ? (
          <Loading what="modules" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="This service runs no modules.">
          <p>Modules are chosen by whoever runs the service; ask them to add one.</p>
        </EmptyState>
      ) : (
        <ul class="tenant-modules">
          {list.map((setting) => (
            <ModuleRow key={setting.module} setting={setting} onChange={replace} />
          ))}
        </ul>
      )}
    </Page>
  );
}
