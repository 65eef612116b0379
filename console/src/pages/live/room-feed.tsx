import { type Signal, useSignal } from '@preact/signals';
import type { ChatMessage, Member } from '@svc/client/realtime';
import { api } from '../../lib/api.ts';
import { ConfirmButton, EmptyState, ErrorNotice, Time } from '../../lib/ui.tsx';
import { type LiveRoom, useLiveRoom } from './realtime.tsx';

const HISTORY_PAGE = 50;
/** The console reads a room: it is never one of its members and never writes to its chat by socket. */
const ROOM_ACCESS = { modules: ['presence', 'chat'], scopes: ['presence:read', 'chat:read'] };

export interface RoomFeed {
  live: LiveRoom;
  members: Signal<Member[]>;
  /** The messages shown, by id; the newest copy (highest revision) of each. */
  messages: Signal<Map<string, ChatMessage>>;
  /** Where older history continues (null: the oldest is shown), undefined before the first page. */
  olderCursor: Signal<string | null | undefined>;
  historyError: Signal<unknown>;
  merge: (messages: readonly ChatMessage[]) => void;
}

/** The room's members and chat: history by REST, then every change live over the socket. */
export function useRoomFeed(roomId: string): RoomFeed {
  const members = useSignal<Member[]>([]);
  const messages = useSignal(new Map<string, ChatMessage>());
  const olderCursor = useSignal<string | null | undefined>(undefined);
  const historyError = useSignal<unknown>(undefined);
  const merge = (incoming: readonly ChatMessage[]) => {
    const next = new Map(messages.value);
    for (const message of incoming) {
      const known = next.get(message.id);
      if (known === undefined || known.revision <= message.revision) next.set(message.id, message);
    }
    messages.value = next;
  };
  const loadNewest = async () => {
    try {
      const { data } = await api.GET('/v1/rooms/{roomId}/messages', {
        params: { path: { roomId }, query: { limit: HISTORY_PAGE } },
      });
      merge(data.data);
      olderCursor.value = data.nextCursor;
      historyError.value = undefined;
    } catch (caught) {
      historyError.value = caught;
    }
  };
  /** Without a socket (a viewer's role): who is here and the newest page of the chat, read again. */
  const poll = async () => {
    try {
      const { data } = await api.GET('/v1/rooms/{roomId}/presence', {
        params: { path: { roomId }, query: { limit: 100 } },
      });
      members.value = data.data;
    } catch (caught) {
      historyError.value = caught;
    }
    await loadNewest();
  };
  const live = useLiveRoom(
    roomId,
    ROOM_ACCESS,
    (room) => {
      // A live join (not a resume) starts from the newest change: what came before is read as history.
      room.on('joined', ({ resumedFrom }) => {
        if (resumedFrom === null) void loadNewest();
      });
      room.on('resync', () => void loadNewest());
      room.on('presence', (change) => {
        members.value = change.members;
      });
      room.on('message', (message) => merge([message]));
      room.on('messageUpdated', (message) => merge([message]));
      room.on('messageDeleted', (message) => merge([message]));
    },
    poll,
  );
  return { live, members, messages, olderCursor, historyError, merge };
}

function actorName(actor: { id: string; displayName?: string }): string {
  return actor.displayName ?? actor.id;
}

/** Who is in the room now, as members join, change their state and leave. */
export function PresencePanel(props: { members: Member[] }) {
  return (
    <section class="live-panel" aria-labelledby="presence-title">
      <h2 id="presence-title">Here now ({props.members.length})</h2>
      {props.members.length === 0 ? (
        <EmptyState title="Nobody is in the room now.">
          <p>Members appear here as they join with presence; the console watches without joining.</p>
        </EmptyState>
      ) : (
        <ul class="live-members" aria-label="Members">
          {props.members.map((member) => (
            <li key={member.actor.id}>
              <strong>{actorName(member.actor)}</strong> <span class="live-muted">({member.actor.type})</span>
              <div class="live-muted">
                {member.connections === 1 ? '1 connection' : `${member.connections} connections`}, joined{' '}
                <Time value={member.joinedAt} />
              </div>
              {Object.keys(member.state).length === 0 ? null : (
                <code class="live-state">{JSON.stringify(member.state)}</code>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function MessageItem(props: { roomId: string; message: ChatMessage; onDeleted: (m: ChatMessage) => void }) {
  const { message } = props;
  const deleted = message.deletedAt !== null;
  return (
    <li class={deleted ? 'live-message live-deleted' : 'live-message'}>
      <div class="live-muted">
        #{message.seq} <strong>{actorName(message.author)}</strong> · <Time value={message.createdAt} />
        {message.editedAt === null || deleted ? '' : ' · edited'}
      </div>
      {deleted ? (
        <p>
          <em>Message deleted</em> <Time value={message.deletedAt} />
        </p>
      ) : (
        <>
          <p class="live-text">{message.text}</p>
          <ConfirmButton
            label="Delete"
            confirm={`Delete message #${message.seq} by ${actorName(message.author)}? Its text is removed for everyone; a tombstone stays in the history.`}
            onConfirm={async () => {
              const { data } = await api.DELETE('/v1/rooms/{roomId}/messages/{messageId}', {
                params: { path: { roomId: props.roomId, messageId: message.id } },
              });
              props.onDeleted(data);
            }}
          />
        </>
      )}
    </li>
  );
}

/** The room's chat, oldest first: history, then new messages, edits and deletions as they happen. */
export function ChatPanel(props: { roomId: string; feed: RoomFeed }) {
  const { feed } = props;
  const loadingOlder = useSignal(false);
  const sorted = [...feed.messages.value.values()].sort((a, b) => a.seq - b.seq);
  const cursor = feed.olderCursor.value;
  const loadOlder = async () => {
    if (typeof cursor !== 'string') return;
    loadingOlder.value = true;
    try {
      const { data } = await api.GET('/v1/rooms/{roomId}/messages', {
        params: { path: { roomId: props.roomId }, query: { limit: 50, cursor } },
      });
      feed.merge(data.data);
      feed.olderCursor.value = data.nextCursor;
    } catch (caught) {
      feed.historyError.value = caught;
    } finally {
      loadingOlder.value = false;
    }
  };
  return (
    <section class="live-panel" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat</h2>
      {feed.historyError.value === undefined ? null : <ErrorNotice error={feed.historyError.value} />}
      {typeof cursor === 'string' ? (
        <button type="button" class="secondary" disabled={loadingOlder.value} onClick={loadOlder}>
          Load older messages
        </button>
      ) : null}
      {sorted.length === 0 ? (
        <EmptyState title={cursor === undefined ? 'Reading the chat…' : 'No messages yet.'}>
          <p>Messages appear here as they are sent (POST /v1/rooms/{'{roomId}'}/messages or chat.send).</p>
        </EmptyState>
      ) : (
        <ol class="live-messages" aria-label="Messages" aria-live="polite">
          {sorted.map((message) => (
            <MessageItem
              key={message.id}
              roomId={props.roomId}
              message={message}
              onDeleted={(m) => feed.merge([m])}
            />
          ))}
        </ol>
      )}
    </section>
  );
}
