declare const roomKeyBrand: unique symbol;

/**
 * A room as the backplane knows it: tenant and room together (`t:<tenantId>:room:<roomId>`). Branded so a
 * bare room id can never be passed where the tenant must be part of the name.
 */
export type RoomKey = string & { readonly [roomKeyBrand]: true };

// Colons separate the parts of a name; a part containing one could alias another tenant's room.
const NAME_PART = /^[A-Za-z0-9_-]{1,128}$/;

function checkedPart(kind: string, value: string): string {
  if (!NAME_PART.test(value)) throw new RangeError(`${kind} is not usable in a realtime name: ${value}`);
  return value;
}

export function roomKey(tenantId: string, roomId: string): RoomKey {
  return `t:${checkedPart('tenantId', tenantId)}:room:${checkedPart('roomId', roomId)}` as RoomKey;
}

/** The pub/sub channel of a room; on Redis it becomes `<prefix><key>`, e.g. `svc:t:ten_…:room:room_…`. */
export function roomChannel(tenantId: string, roomId: string): string {
  return roomKey(tenantId, roomId);
}
