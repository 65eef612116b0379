import { suiteFixture } from '../support/suite.ts';
import type { ChatFrame, TestClient } from './client.ts';
import { type Instance, startInstance } from './support.ts';

/** An instance with small replay pages, so a resume crosses several of them; open for the describe's tests. */
export function resumeInstance(): () => Instance {
  return suiteFixture(
    'resumeInstance',
    () => startInstance({ chat: { replayPageSize: 7 } }),
    (t) => t.close(),
  );
}

/** What a chat frame says, compactly: type, message id, change number. */
export const summary = (frames: ChatFrame[]) => frames.map((f) => [f.type, f.message.id, f.changeSeq]);

/** Sends a ping and waits for its pong: every frame the server sent before it has arrived. */
export async function settle(client: TestClient): Promise<void> {
  const ref = `settle-${Math.random().toString(36).slice(2)}`;
  client.send({ type: 'ping', ref });
  await client.waitFor((f) => f.ref === ref, 'the pong');
}
