import { roomKey } from '../../core/realtime/index.ts';
import { DEFAULT_DOC_NAME } from './schema.ts';

/** One shared document: a tenant's room and the document's name in it. */
export interface DocumentKey {
  tenantId: string;
  roomId: string;
  docName: string;
}

export function documentKey(tenantId: string, roomId: string, docName?: string): DocumentKey {
  return { tenantId, roomId, docName: docName ?? DEFAULT_DOC_NAME };
}

/** The key as one string (map keys, group-commit keys). Doc names hold no `:`, so it cannot alias. */
export function keyString(key: DocumentKey): string {
  return `${key.tenantId}:${key.roomId}:${key.docName}`;
}

/** The backplane channel of a document: `t:<tenant>:room:<room>:sync:<doc>`. */
export function documentChannel(key: DocumentKey): string {
  return `${roomKey(key.tenantId, key.roomId)}:sync:${key.docName}`;
}
