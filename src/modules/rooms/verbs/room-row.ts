import type { Static } from 'typebox';
import type { Room } from '../schema.ts';

export interface RoomRow {
  id: string;
  seq: number | string;
  name: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export const ROOM_COLUMNS = 'id, seq, name, metadata, created_at, updated_at';

export function toRoom(row: RoomRow): Static<typeof Room> {
  return {
    id: row.id,
    name: row.name,
    metadata: row.metadata,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
