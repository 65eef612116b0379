import { defineIds } from '../../core/ids.ts';

/** The kinds of ids the rooms module mints and their prefixes, which its stored ids carry: never change one. */
export const roomsIds = defineIds({ room: 'room' });
export const { newId, isId, idPattern } = roomsIds;
