import type { TenantEvent } from './types.ts';

/**
 * Committed events, published after commit to whoever listens in this process (realtime fan-out,
 * webhook worker wake-up). A Redis-backed bus implements the same interface for several instances.
 */
export interface EventBus {
  publish(event: TenantEvent): void;
  subscribe(handler: (event: TenantEvent) => void): () => void;
  close(): Promise<void>;
}

export class MemoryEventBus implements EventBus {
  private readonly handlers = new Set<(event: TenantEvent) => void>();

  constructor(private readonly onError: (error: unknown) => void = () => {}) {}

  publish(event: TenantEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  subscribe(handler: (event: TenantEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
