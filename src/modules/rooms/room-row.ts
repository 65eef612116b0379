import type { Static } from 'typebox';
import { isoTime } from '../../core/db/database.ts';
import type { Room } from './schema.ts';

export interface RoomRow {
  id: string;
  seq: number | string;
  name: string | null;
  metadata: Record<string, unknown>;
  /** ISO 8601 text (`isoTime`). */
  created_at: string;
  updated_at: string;
}

export const ROOM_COLUMNS = `id, seq, name, metadata, ${isoTime('created_at')} as created_at, ${isoTime('updated_at')} as updated_at`;

export function toRoom(row: RoomRow): Static<typeof Room> {
  return {
    id: row.id,
    name: row.name,
    metadata: row.metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
