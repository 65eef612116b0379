import { type Signal, useSignal } from '@preact/signals';
import { createRealtime, type RealtimeStatus, type Room } from '@svc/client/realtime';
import { useEffect } from 'preact/hooks';
import { api } from '../../lib/api.ts';
import { viewerActor } from './viewer.ts';

/** What a live page's session token is minted for: its modules and the read scopes among theirs. */
export interface LiveAccess {
  modules: string[];
  scopes: string[];
}

export interface LiveRoom {
  /** The socket's state: `connecting`, `connected`, `reconnecting` or `closed`. */
  status: Signal<RealtimeStatus>;
  /** Why the live view cannot connect or join (a refused token, a refused join), to show as an error. */
  error: Signal<unknown>;
}

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
 * room's members never see it. The socket is closed when the page goes away or the room changes.
 */
export function useLiveRoom(
  roomId: string | undefined,
  access: LiveAccess,
  attach: (room: Room) => void,
): LiveRoom {
  const status = useSignal<RealtimeStatus>('connecting');
  const error = useSignal<unknown>(undefined);
  useEffect(() => {
    if (roomId === undefined) return;
    const rt = createRealtime({ baseUrl: window.location.origin, getToken: () => mintToken(roomId, access) });
    rt.on('status', (change) => {
      status.value = change.status;
      if (change.status === 'connected') error.value = undefined;
    });
    rt.on('error', (caught) => {
      error.value = caught;
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
  return { status, error };
}

const STATUS_TEXT: Record<RealtimeStatus, string> = {
  connecting: 'Connecting…',
  connected: 'Live: changes appear as they happen',
  reconnecting: 'Reconnecting… (changes made meanwhile appear when it is back)',
  closed: 'Disconnected: reload the page to watch again',
};

/** The live view's state in words, announced politely when it changes. */
export function LiveStatus(props: { status: RealtimeStatus }) {
  return (
    <p class={`live-status live-${props.status}`} role="status">
      {STATUS_TEXT[props.status]}
    </p>
  );
}
