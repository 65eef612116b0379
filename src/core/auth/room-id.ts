/**
 * Room ids are prefix-style (`room_...`) or a client's own URL-safe id. A session token may be limited to
 * one room, realtime frames and module routes name rooms: all check this one pattern.
 */
export const ROOM_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
