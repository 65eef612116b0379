import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { Link, tenantPath } from '../../lib/router.tsx';
import { ErrorNotice, Loading, Page, Time } from '../../lib/ui.tsx';
import type { PageProps } from '../page.ts';
import { LiveStatus } from './realtime.tsx';
import { ChatPanel, PresencePanel, useRoomFeed } from './room-feed.tsx';

/** A room: its details, who is in it now and its chat, both live; a message can be deleted. */
export function RoomPage(props: PageProps) {
  const roomId = props.params.roomId ?? '';
  const room = useLoad(async () => {
    const { data } = await api.GET('/v1/rooms/{roomId}', { params: { path: { roomId } } });
    return data;
  }, [roomId]);
  const feed = useRoomFeed(roomId);
  const details = room.data.value;
  const metadata = Object.entries(details?.metadata ?? {});
  return (
    <Page title={details?.name ?? `Room ${roomId}`}>
      <p>
        <Link to={tenantPath('rooms')}>All rooms</Link> ·{' '}
        <Link to={tenantPath(`auctions?roomId=${encodeURIComponent(roomId)}`)}>Auctions in this room</Link>
      </p>
      {room.error.value === undefined ? null : <ErrorNotice error={room.error.value} />}
      {details === undefined ? (
        room.loading.value ? (
          <Loading what="the room" />
        ) : null
      ) : (
        <dl class="live-details">
          <dt>Id</dt>
          <dd>
            <code>{details.id}</code>
          </dd>
          <dt>Metadata</dt>
          <dd>
            {metadata.length === 0
              ? 'none'
              : metadata.map(([key, value]) => (
                  <span class="live-tag" key={key}>
                    {key}={String(value)}
                  </span>
                ))}
          </dd>
          <dt>Created</dt>
          <dd>
            <Time value={details.createdAt} />
          </dd>
          <dt>Updated</dt>
          <dd>
            <Time value={details.updatedAt} />
          </dd>
        </dl>
      )}
      <LiveStatus mode={feed.live.mode.value} />
      {feed.live.error.value === undefined ? null : <ErrorNotice error={feed.live.error.value} />}
      <div class="live-columns">
        <PresencePanel members={feed.members.value} />
        <ChatPanel roomId={roomId} feed={feed} />
      </div>
    </Page>
  );
}
