import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';
import { closedInput, dateTime, resource } from '../../core/http/named-schemas.ts';
import { PAGE_QUERY, Page } from '../../core/http/pagination.ts';
import { Actor } from '../../core/tenancy/actors.ts';

/** A member's state is the client's own JSON object, at most this many bytes as JSON. */
export const MAX_STATE_BYTES = 2048;

export const RoomId = Type.String({ pattern: ROOM_ID_PATTERN, description: 'The room' });

export const PresenceState = Type.Object(
  {},
  { additionalProperties: true, description: `Any JSON object, <= ${MAX_STATE_BYTES} bytes as JSON` },
);

export const Member = resource(
  'PresenceMember',
  'One actor present in a room, however many tabs it has open, with its shared state',
  {
    actor: Actor,
    state: PresenceState,
    connections: Type.Integer({ minimum: 1, description: 'Open connections (tabs, devices) of this actor' }),
    joinedAt: dateTime(),
    updatedAt: dateTime(),
  },
);

export const MemberList = Page(
  Member,
  'PresenceMemberPage',
  'A page of the members of a room now, in order of joining',
);

export const PresenceRef = closedInput(
  'ListPresenceActionInput',
  'The room whose members to list, a page at a time',
  { roomId: RoomId, ...PAGE_QUERY },
);

export const PresenceConfig = closedInput('PresenceConfig', 'Presence has no settings', {});
