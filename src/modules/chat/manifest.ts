import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { moduleScopes } from '../../core/modules/module-scopes.ts';
import { chatIds } from './ids.ts';
import { chatRealtime } from './realtime/index.ts';
import { CHAT_CHANGES_RETENTION } from './retention.ts';
import { chatRoutes } from './routes.ts';
import {
  ChatConfig,
  ListMessagesInput,
  Message,
  MessagePage,
  MessageRef,
  SendMessageInput,
} from './schema.ts';
import { deleteMessage } from './verbs/delete-message.ts';
import { listMessages } from './verbs/list-messages.ts';
import { sendMessage } from './verbs/send-message.ts';

export const chatModule: ModuleManifest = {
  name: 'chat',
  title: 'Chat',
  description:
    'Messages in rooms, numbered per room, with edits, tombstones, reactions, moderation and live delivery.',
  version: '1.0.0',
  ...moduleScopes('chat', ['read', 'write'], ['read', 'write']),
  eventTypes: ['chat.message.created', 'chat.message.updated', 'chat.message.deleted'],
  configSchema: ChatConfig,
  idPrefixes: chatIds.prefixes,
  routes: chatRoutes,
  migrations: new URL('./migrations/', import.meta.url),
  hooks: () => ({ realtime: chatRealtime() }),
  retention: [CHAT_CHANGES_RETENTION],
  actions: [
    defineAction({
      name: 'list_messages',
      title: 'List messages',
      description:
        'Messages of a room, oldest first within a page: the newest page by default, older ones with `cursor` (the nextCursor of the page before) or `before`, newer with `after` (seq numbers).',
      input: ListMessagesInput,
      output: MessagePage,
      scope: 'chat:read',
      route: 'listMessages',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: listMessages,
    }),
    defineAction({
      name: 'send_message',
      title: 'Send a message',
      description:
        'Post a message to a room. With an API key, `actor` names who it is from: the Actor object runtime/connect takes, `{type, id, identityProvider}` (created if new).',
      input: SendMessageInput,
      output: Message,
      scope: 'chat:write',
      route: 'sendMessage',
      credentials: ['api_key', 'session'],
      access: 'write',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: sendMessage,
    }),
    defineAction({
      name: 'delete_message',
      title: 'Delete a message',
      description: 'Remove a message’s text and metadata for good, leaving a tombstone in its place.',
      input: MessageRef,
      output: Message,
      scope: 'chat:write',
      route: 'deleteMessage',
      credentials: ['api_key', 'session'],
      access: 'destructive',
      confirmation: 'destructive',
      workspaceTypes: ALL_WORKSPACES,
      run: deleteMessage,
    }),
  ],
};
