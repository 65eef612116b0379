import type { ServiceContext } from '../../../core/context.ts';
import { AppError } from '../../../core/http/errors.ts';
import { assertRoomExists } from '../../rooms/port.ts';
import { documentChannel, documentKey } from '../document-key.ts';
import type { ChannelMessage } from '../live-document.ts';
import { SyncConfig } from '../schema.ts';
import { appendUpdate, ensureDocument, storedBytes } from '../store.ts';
import { assertWellFormedUpdate, fromBase64, toBase64 } from '../updates.ts';

export interface ApplyUpdateRequest {
  roomId: string;
  docName?: string | undefined;
  /** The Yjs update: bytes (REST body) or base64 (actions). */
  update: Uint8Array | string;
}

/** Who a REST or action write comes from on the backplane: every instance holding the document applies it. */
export const FROM_API = 'api';

/**
 * Applies a Yjs update to the room's document: checked, appended to the log, then sent to every
 * instance holding the document open, whose clients receive it like any other edit.
 */
export async function applyDocumentUpdate(
  ctx: ServiceContext,
  input: ApplyUpdateRequest,
): Promise<{ roomId: string; docName: string; bytes: number }> {
  await assertRoomExists(ctx, input.roomId);
  const update = typeof input.update === 'string' ? fromBase64(input.update) : input.update;
  assertWellFormedUpdate(update, typeof input.update === 'string' ? '/update' : '/body');
  const key = documentKey(ctx.tenantId, input.roomId, input.docName);
  const config = await ctx.enablement.config<{ maxDocumentBytes: number; syncEventThrottleSeconds: number }>(
    ctx.tenantId,
    'sync',
    SyncConfig,
  );
  await ensureDocument(ctx.db, key);
  const size = await storedBytes(ctx.db, key);
  if (size + update.byteLength > config.maxDocumentBytes) {
    throw new AppError(
      'payload_too_large',
      `the document would grow past ${config.maxDocumentBytes} bytes (maxDocumentBytes of the sync module)`,
    );
  }
  await appendUpdate({ ctx, key, update, eventThrottleMs: config.syncEventThrottleSeconds * 1000 });
  const message: ChannelMessage = { from: FROM_API, kind: 'update', data: toBase64(update), owner: '' };
  try {
    await ctx.realtime?.pubsub.publish(documentChannel(key), message);
  } catch (error) {
    // Stored already: instances holding the document read it at their next resync.
    ctx.log.warn({ err: error }, 'a sync update could not be sent to live clients');
  }
  return { roomId: key.roomId, docName: key.docName, bytes: update.byteLength };
}
