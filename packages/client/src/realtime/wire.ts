/** The socket's address for a token: `wss://…/v1/realtime?token=…` from `https://…`. */
export function socketUrl(baseUrl: string, token: string): string {
  const base = baseUrl.replace(/\/+$/, '').replace(/^http/i, 'ws');
  return `${base}/v1/realtime?token=${encodeURIComponent(token)}`;
}

/** A send's `clientId`: a UUID where the platform has one. */
export function newClientId(): string {
  const uuid = globalThis.crypto?.randomUUID?.();
  if (uuid !== undefined) return uuid;
  const part = () =>
    Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return `c-${part()}${part()}${part()}${part()}`;
}

/** A frame's text, whatever the WebSocket class hands over. */
export function frameText(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  return typeof data === 'object' && data !== null ? String(data) : undefined;
}
