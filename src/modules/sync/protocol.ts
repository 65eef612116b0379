import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import type * as Y from 'yjs';

/** Message types of the y-websocket protocol (the first varUint of every binary frame). */
export const MESSAGE = { sync: 0, awareness: 1, auth: 2, queryAwareness: 3 } as const;

/** A client frame, decoded. Anything that does not decode whole is malformed. */
export type ClientMessage =
  | { kind: 'step1'; stateVector: Uint8Array }
  | { kind: 'update'; update: Uint8Array }
  | { kind: 'awareness'; update: Uint8Array }
  | { kind: 'queryAwareness' }
  | { kind: 'ignored' };

export class MalformedMessage extends Error {}

export function decodeClientMessage(frame: Uint8Array): ClientMessage {
  try {
    const decoder = decoding.createDecoder(frame);
    const type = decoding.readVarUint(decoder);
    let message: ClientMessage;
    switch (type) {
      case MESSAGE.sync: {
        const step = decoding.readVarUint(decoder);
        const payload = decoding.readVarUint8Array(decoder);
        if (step === syncProtocol.messageYjsSyncStep1) message = { kind: 'step1', stateVector: payload };
        else if (step === syncProtocol.messageYjsSyncStep2 || step === syncProtocol.messageYjsUpdate)
          message = { kind: 'update', update: payload };
        else throw new MalformedMessage(`unknown sync step ${step}`);
        break;
      }
      case MESSAGE.awareness:
        message = { kind: 'awareness', update: decoding.readVarUint8Array(decoder) };
        break;
      case MESSAGE.queryAwareness:
        message = { kind: 'queryAwareness' };
        break;
      default:
        // Auth (2) is a server message; other types are left for newer clients.
        return { kind: 'ignored' };
    }
    if (decoding.hasContent(decoder)) throw new MalformedMessage('trailing bytes after the message');
    return message;
  } catch (error) {
    if (error instanceof MalformedMessage) throw error;
    throw new MalformedMessage('the frame is not a y-websocket message');
  }
}

export function step1Message(doc: Y.Doc): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE.sync);
  syncProtocol.writeSyncStep1(encoder, doc);
  return encoding.toUint8Array(encoder);
}

export function step2Message(doc: Y.Doc, stateVector: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE.sync);
  syncProtocol.writeSyncStep2(encoder, doc, stateVector);
  return encoding.toUint8Array(encoder);
}

export function updateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE.sync);
  syncProtocol.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

export function awarenessMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE.awareness);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** Every known awareness state of the document, as one message; undefined when there is none. */
export function awarenessStatesMessage(awareness: awarenessProtocol.Awareness): Uint8Array | undefined {
  const clients = [...awareness.getStates().keys()];
  if (clients.length === 0) return undefined;
  return awarenessMessage(awarenessProtocol.encodeAwarenessUpdate(awareness, clients));
}

/** One state of an awareness update: its client id, and its JSON as sent (`null` removes it). */
export interface AwarenessEntry {
  clientId: number;
  clock: number;
  json: string;
}

/**
 * The states an awareness update carries (checked before it is applied). The JSON is not parsed here: its
 * size and depth are checked first (awareness-guard.ts), and `parse` says whether it is JSON at all.
 */
export function awarenessEntries(update: Uint8Array): AwarenessEntry[] {
  const decoder = decoding.createDecoder(update);
  const count = decoding.readVarUint(decoder);
  const entries: AwarenessEntry[] = [];
  for (let i = 0; i < count; i++) {
    const clientId = decoding.readVarUint(decoder);
    const clock = decoding.readVarUint(decoder);
    entries.push({ clientId, clock, json: decoding.readVarString(decoder) });
  }
  if (decoding.hasContent(decoder)) throw new MalformedMessage('trailing bytes after the awareness update');
  return entries;
}

/** An awareness update of these states (the ones of a client's update that it may apply). */
export function encodeAwarenessEntries(entries: readonly AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const { clientId, clock, json } of entries) {
    encoding.writeVarUint(encoder, clientId);
    encoding.writeVarUint(encoder, clock);
    encoding.writeVarString(encoder, json);
  }
  return encoding.toUint8Array(encoder);
}

/** Throws MalformedMessage unless every state is JSON (after the guard bounded its size and depth). */
export function assertAwarenessJson(entries: readonly AwarenessEntry[]): void {
  for (const { json } of entries) {
    try {
      JSON.parse(json);
    } catch {
      throw new MalformedMessage('an awareness state is not JSON');
    }
  }
}
