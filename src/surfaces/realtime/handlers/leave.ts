import type { Static } from 'typebox';
import type { Connection } from '../connection.ts';
import type { Gateway } from '../gateway.ts';
import type { LeaveFrame } from '../protocol.ts';
import { membershipIn } from './room-checks.ts';

/** Leaves a room; the actor stays a member while another of its connections is still in it. */
export async function handleLeave(
  gateway: Gateway,
  connection: Connection,
  frame: Static<typeof LeaveFrame>,
): Promise<void> {
  await gateway.leave(connection, membershipIn(connection, frame.room));
}
