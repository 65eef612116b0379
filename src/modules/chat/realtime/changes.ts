import { type EncodedFrame, encodeFrame } from '../../../core/realtime/contributions.ts';
import type { StoredChange } from '../store/change-log.ts';
import type { ChatMessage } from '../store/message-row.ts';

export type ChatOp = 'created' | 'updated' | 'deleted';

/** A room's chat changes are an ordered stream of each membership, by change number. */
export const CHAT_STREAM = 'chat';

/** One change of a room's chat as sockets get it: its number in the room, what happened, the message. */
export interface ChatChange {
  changeSeq: number;
  op: ChatOp;
  message: ChatMessage;
  /** The revision this change gave the message; `message.revision` is higher when read back later. */
  revision: number;
}

const FRAME_TYPE = { created: 'chat.message', updated: 'chat.updated', deleted: 'chat.deleted' } as const;

/** The frame of a change; `changeSeq` is absent only for a change an older instance published. */
export function chatFrame(
  room: string,
  change: { op: ChatOp; message: ChatMessage; changeSeq?: number },
): EncodedFrame {
  const { op, message, changeSeq } = change;
  return encodeFrame({
    type: FRAME_TYPE[op],
    room,
    message,
    ...(changeSeq === undefined ? {} : { changeSeq }),
  });
}

/** A change published live: its message is the one the change left. */
export function liveChange(op: ChatOp, message: ChatMessage, changeSeq: number): ChatChange {
  return { changeSeq, op, message, revision: message.revision };
}

/**
 * A change read back from the database carries its message as it is now. A creation is a `chat.message`
 * (the client never had the message); any other change is a `chat.deleted` when the message is deleted by
 * now, even if the change itself was an edit (the deletion is in it already), else a `chat.updated`.
 */
export function storedChange(stored: StoredChange): ChatChange {
  const { changeSeq, kind, revision, message } = stored;
  const op: ChatOp = kind === 'created' ? 'created' : message.deletedAt !== null ? 'deleted' : 'updated';
  return { changeSeq, op, message, revision };
}

/**
 * A message read back from the database may already hold later changes of its own, which then come one
 * by one after it: those are skipped instead of sending the same revision again. Only messages sent ahead
 * of their changes are remembered, and only until those changes have gone by.
 */
export class SentAhead {
  private readonly revisions = new Map<string, number>();

  /** True when the change is news to the client; remembers a message sent ahead of its changes. */
  admit(change: ChatChange): boolean {
    const { id, revision: current } = change.message;
    const sent = this.revisions.get(id);
    if (sent !== undefined && change.revision <= sent) return false;
    if (current > change.revision) this.revisions.set(id, current);
    else this.revisions.delete(id);
    return true;
  }

  clear(): void {
    this.revisions.clear();
  }
}
