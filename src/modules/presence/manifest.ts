import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { moduleScopes } from '../../core/modules/module-scopes.ts';
import { presenceRealtime } from './realtime.ts';
import { presenceRoutes } from './routes.ts';
import { MemberList, PresenceConfig, PresenceRef } from './schema.ts';
import { listPresence } from './verbs/list-presence.ts';

export const presenceModule: ModuleManifest = {
  name: 'presence',
  title: 'Presence',
  description:
    'Who is in a room right now, one member per person or agent however many tabs they have, with live state.',
  version: '1.0.0',
  ...moduleScopes('presence', ['read', 'write'], ['read', 'write']),
  eventTypes: [],
  configSchema: PresenceConfig,
  routes: presenceRoutes,
  hooks: () => ({ realtime: presenceRealtime() }),
  actions: [
    defineAction({
      name: 'list_presence',
      title: 'List who is in a room',
      description: 'Members of a room now, in order of joining, with their state and open connections.',
      input: PresenceRef,
      output: MemberList,
      scope: 'presence:read',
      route: 'listPresence',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: listPresence,
    }),
  ],
};
