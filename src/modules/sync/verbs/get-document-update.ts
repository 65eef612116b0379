import * as Y from 'yjs';
import type { ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { assertRoomExists } from '../../rooms/port.ts';
import { documentKey } from '../document-key.ts';
import { readStoredUpdates } from '../store.ts';
import { fromBase64 } from '../updates.ts';

export interface DocumentUpdateRequest {
  roomId: string;
  docName?: string | undefined;
  /** A client's state vector, base64: only what it lacks is returned. */
  stateVector?: string | undefined;
}

/** The stored document as one Yjs update (`Y.applyUpdate` it), or the diff against a state vector. */
export async function getDocumentUpdate(
  ctx: ServiceContext,
  input: DocumentUpdateRequest,
): Promise<Uint8Array> {
  let stateVector: Uint8Array | undefined;
  if (input.stateVector !== undefined) {
    stateVector = fromBase64(input.stateVector);
    try {
      Y.decodeStateVector(stateVector);
    } catch {
      throw new InvalidRequest('stateVector is not a Yjs state vector (Y.encodeStateVector, base64)', [
        {
          field: '/querystring/stateVector',
          message: 'not a decodable state vector',
          code: 'malformed_state_vector',
        },
      ]);
    }
  }
  await assertRoomExists(ctx, input.roomId);
  const stored = await readStoredUpdates(ctx.db, documentKey(ctx.tenantId, input.roomId, input.docName));
  const merged = stored.length === 0 ? Y.encodeStateAsUpdate(new Y.Doc()) : Y.mergeUpdates(stored);
  return stateVector === undefined ? merged : Y.diffUpdate(merged, stateVector);
}
