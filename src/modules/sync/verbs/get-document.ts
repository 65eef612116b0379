import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { assertRoomExists } from '../../rooms/port.ts';
import { documentJson } from '../document-json.ts';
import { documentKey } from '../document-key.ts';
import type { DocumentJson, DocumentRef } from '../schema.ts';
import { loadStoredDocument } from '../store.ts';

/** The room's document as JSON, as stored: every edit a client was relayed is in it. */
export async function getDocument(
  ctx: ServiceContext,
  input: Static<typeof DocumentRef>,
): Promise<Static<typeof DocumentJson>> {
  await assertRoomExists(ctx, input.roomId);
  const key = documentKey(ctx.tenantId, input.roomId, input.docName);
  const doc = await loadStoredDocument(ctx.db, key);
  try {
    return { roomId: key.roomId, docName: key.docName, data: documentJson(doc) };
  } finally {
    doc.destroy();
  }
}
