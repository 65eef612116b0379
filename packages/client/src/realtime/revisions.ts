import type { ChatMessage } from './types.js';

/**
 * The highest revision the app was given of recent messages, so a copy that is not newer is not given
 * again (a resume cut short may send a message once more with the same revision). Bounded: the oldest
 * entries go first; a copy of a message that old is then passed on, as the server sent it.
 */
export class Revisions {
  private readonly seen = new Map<string, number>();

  constructor(private readonly limit = 2_000) {}

  /** True when the copy is news (first seen, or a higher revision), and remembers it. */
  admit(message: ChatMessage): boolean {
    const known = this.seen.get(message.id);
    if (known !== undefined && message.revision <= known) return false;
    this.seen.delete(message.id);
    this.seen.set(message.id, message.revision);
    if (this.seen.size > this.limit) {
      const oldest = this.seen.keys().next();
      if (oldest.done !== true) this.seen.delete(oldest.value);
    }
    return true;
  }

  clear(): void {
    this.seen.clear();
  }
}
