// The realtime core the gateway and modules use; the files behind it are implementation.
export {
  type BackplaneOptions,
  createRealtimeBackplane,
  type RealtimeBackplane,
} from './backplane.ts';
export type { JsonObject, JsonValue } from './json.ts';
export type { ErrorReporter } from './listeners.ts';
export { type RoomKey, roomChannel, roomKey } from './names.ts';
export type { ExpiredLeave, PresenceJoin, PresenceMember, PresenceStore } from './presence.ts';
export { DEFAULT_PRESENCE_TTL_MS } from './presence.ts';
export { type MessageHandler, type PubSub, PubSubClosedError, type Unsubscribe } from './pubsub.ts';
