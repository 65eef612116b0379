import { type Static, type TObject, type TProperties, type TSchema, Type } from 'typebox';
import { AppError, type ErrorDetail, InvalidRequest } from '../../core/http/errors.ts';
import { jsonProblem } from '../../core/http/json-safety.ts';
import type { InstalledHooks } from '../../core/modules/hooks.ts';
import { validated } from '../../core/modules/validate.ts';
import {
  type ClientFrameHandler,
  type FrameBase,
  type JoinBase,
  RoomField,
} from '../../core/realtime/contributions.ts';

/** The client's own reference for a frame, echoed in the `error` (or `joined`, `pong`) it causes. */
const Ref = Type.Optional(Type.String({ maxLength: 64 }));
const strict = { additionalProperties: false };

function frameSchema(type: string, fields: TProperties): TObject {
  return Type.Object({ type: Type.Literal(type), ...fields, ref: Ref }, strict);
}

export const LeaveFrame = frameSchema('leave', { room: RoomField });
export const PingFrame = frameSchema('ping', {});

/** A frame the gateway cannot read: answered with an `error` frame of code `invalid_frame`. */
export class InvalidFrame extends Error {
  constructor(
    message: string,
    readonly ref: string | undefined,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'InvalidFrame';
  }
}

/** A checked client frame: one of the gateway's own, or one a module handles. */
export type ClientFrame =
  | { kind: 'join'; frame: JoinBase }
  | { kind: 'leave'; frame: Static<typeof LeaveFrame> & JoinBase }
  | { kind: 'ping'; frame: FrameBase }
  | { kind: 'module'; frame: FrameBase; handler: ClientFrameHandler };

/**
 * The frames clients may send: the gateway's (`join`, `leave`, `ping`) and every module's, with the join
 * frame's fields gathered from the modules that add to it. Built once per gateway.
 */
export class Protocol {
  private readonly schemas = new Map<string, TSchema>();
  private readonly handlers = new Map<string, ClientFrameHandler>();

  constructor(modules: readonly InstalledHooks[]) {
    const joinFields: TProperties = { room: RoomField };
    for (const { module, hooks } of modules) {
      const realtime = hooks.realtime;
      Object.assign(joinFields, realtime?.join?.fields ?? {});
      for (const handler of realtime?.frames ?? []) {
        if (['join', 'leave', 'ping', ...this.handlers.keys()].includes(handler.type)) {
          throw new Error(`module ${module}: the frame type ${handler.type} is taken`);
        }
        this.handlers.set(handler.type, handler);
      }
    }
    this.schemas.set('join', frameSchema('join', joinFields));
    this.schemas.set('leave', LeaveFrame);
    for (const handler of this.handlers.values()) {
      this.schemas.set(handler.type, frameSchema(handler.type, handler.fields));
    }
    this.schemas.set('ping', PingFrame);
  }

  /** Text -> a checked client frame, or InvalidFrame saying what is wrong with it. Never throws anything else. */
  parse(text: string): ClientFrame {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new InvalidFrame('a frame must be a JSON object', undefined);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidFrame('a frame must be a JSON object', undefined);
    }
    const ref = 'ref' in value && typeof value.ref === 'string' ? value.ref.slice(0, 64) : undefined;
    // Nested too deep, or text the database cannot store: refused before any handler sees it.
    const problem = jsonProblem(value, '/frame');
    if (problem !== undefined) throw new InvalidFrame(`${problem.field} ${problem.message}`, ref, [problem]);
    const type = 'type' in value && typeof value.type === 'string' ? value.type : undefined;
    const schema = type === undefined ? undefined : this.schemas.get(type);
    if (type === undefined || schema === undefined) {
      throw new InvalidFrame(`unknown frame type; send one of ${[...this.schemas.keys()].join(', ')}`, ref, [
        { field: '/frame/type', message: 'is not a known frame type', code: 'unknown_type' },
      ]);
    }
    try {
      const handler = this.handlers.get(type);
      if (handler !== undefined) {
        return { kind: 'module', handler, frame: validated<FrameBase>(schema, value, 'frame') };
      }
      if (type === 'join') return { kind: 'join', frame: validated<JoinBase>(schema, value, 'frame') };
      if (type === 'leave') {
        return {
          kind: 'leave',
          frame: validated<Static<typeof LeaveFrame> & JoinBase>(schema, value, 'frame'),
        };
      }
      return { kind: 'ping', frame: validated<FrameBase>(schema, value, 'frame') };
    } catch (error) {
      if (error instanceof InvalidRequest) throw new InvalidFrame(error.message, ref, error.details);
      if (error instanceof AppError) throw new InvalidFrame(error.message, ref);
      throw error;
    }
  }
}
