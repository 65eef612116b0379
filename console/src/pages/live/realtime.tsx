import { type Signal, useSignal } from '@preact/signals';
import { isSvcError } from '@svc/client';
import { createRealtime, type RealtimeStatus, type Room } from '@svc/client/realtime';
import { useEffect } from 'preact/hooks';
import { api } from '../../lib/api.ts';
import { useInterval } from '../../lib/load.ts';
import { viewerActor } from './viewer.ts';

/** What a live page's session token is minted for: its modules and the read scopes among theirs. */
export interface LiveAccess {
  modules: string[];
  scopes: string[];
}

/** The socket's states, and `polling` when the user may not open a realtime session (a viewer). */
export type LiveMode = RealtimeStatus | 'polling';

export interface LiveRoom {
  mode: Signal<LiveMode>;
  /** Why the live view cannot connect or join (a refused token, a refused join), to show as an error. */
  error: Signal<unknown>;
}

/** How often a page polls when it cannot hold a socket: changes still show within a second. */
const POLL_MS = 1000;

/** A session token for the console viewer, limited to one room and to reading (runtime connect). */
async function mintToken(roomId: string, access: LiveAccess): Promise<string> {
  const { data } = await api.POST('/v1/runtime/connect', {
    body: { modules: access.modules, scopes: access.scopes, roomId, actor: viewerActor() },
  });
  return data.token;
}

/**
 * Watches a room over the realtime socket while the page is shown: `attach` subscribes to the room's
 * events (chat, presence, auctions). The viewer joins without presence and with read scopes only, so the
 * room's members never see it. A user whose role may not mint session tokens (viewers: `sessions:manage`
 * is not a read scope) gets `poll` every second instead. The socket closes when the page goes away.
 */
export function useLiveRoom(
  roomId: string | undefined,
  access: LiveAccess,
  attach: (room: Room) => void,
  poll: () => void,
): LiveRoom {
  const mode = useSignal<LiveMode>('connecting');
  const error = useSignal<unknown>(undefined);
  useEffect(() => {
    if (roomId === undefined) return;
    let polling = false;
    const rt = createRealtime({
      baseUrl: window.location.origin,
      getToken: async () => {
        try {
          return await mintToken(roomId, access);
        } catch (caught) {
          if (isSvcError(caught) && caught.status === 403) {
            polling = true;
            mode.value = 'polling';
            queueMicrotask(() => rt.close());
          }
          throw caught;
        }
      },
    });
    rt.on('status', (change) => {
      if (polling) return;
      mode.value = change.status;
      if (change.status === 'connected') error.value = undefined;
    });
    rt.on('error', (caught) => {
      if (!polling) error.value = caught;
    });
    const room = rt.join(roomId);
    room.on('error', (refused) => {
      error.value = refused;
    });
    room.on('joined', () => {
      error.value = undefined;
    });
    attach(room);
    return () => {
      room.leave();
      rt.close();
    };
  }, [roomId]);
  useInterval(
    () => {
      if (mode.value === 'polling') poll();
    },
    POLL_MS,
    [roomId],
  );
  return { mode, error };
}

const STATUS_TEXT: Record<LiveMode, string> = {
  connecting: 'Connecting…',
  connected: 'Live: changes appear as they happen',
  reconnecting: 'Reconnecting… (changes made meanwhile appear when it is back)',
  closed: 'Disconnected: reload the page to watch again',
  polling: 'Live: checked every second (your role cannot open a realtime session)',
};

/** The live view's state in words, announced politely when it changes. */
export function LiveStatus(props: { mode: LiveMode }) {
  return (
    <p class={`live-status live-${props.mode}`} role="status">
      {STATUS_TEXT[props.mode]}
    </p>
  );
}
