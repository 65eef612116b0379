import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { moduleScopes } from '../../core/modules/module-scopes.ts';
import { roomsIds } from './ids.ts';
import { roomsRealtime } from './realtime.ts';
import { roomRoutes } from './routes.ts';
import {
  CreateRoomInput,
  Deleted,
  ListRoomsInput,
  Room,
  RoomPage,
  RoomRef,
  RoomsConfig,
  UpdateRoomArguments,
} from './schema.ts';
import { createRoom } from './verbs/create-room.ts';
import { deleteRoom } from './verbs/delete-room.ts';
import { getRoom } from './verbs/get-room.ts';
import { listRooms } from './verbs/list-rooms.ts';
import { updateRoom } from './verbs/update-room.ts';

export const roomsModule: ModuleManifest = {
  name: 'rooms',
  title: 'Rooms',
  description: 'Named spaces that people and agents join: live shows, auctions, community channels.',
  version: '1.0.0',
  ...moduleScopes('rooms', ['read', 'write'], ['read']),
  eventTypes: ['room.created', 'room.updated', 'room.deleted'],
  configSchema: RoomsConfig,
  idPrefixes: roomsIds.prefixes,
  routes: roomRoutes,
  migrations: new URL('./migrations/', import.meta.url),
  hooks: () => ({ realtime: roomsRealtime() }),
  actions: [
    defineAction({
      name: 'list_rooms',
      title: 'List rooms',
      description: 'Rooms of the tenant, newest first, optionally filtered by metadata key=value pairs.',
      input: ListRoomsInput,
      output: RoomPage,
      scope: 'rooms:read',
      route: 'listRooms',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: listRooms,
    }),
    defineAction({
      name: 'get_room',
      title: 'Get a room',
      description: 'One room by id.',
      input: RoomRef,
      output: Room,
      scope: 'rooms:read',
      route: 'getRoom',
      credentials: ['api_key', 'session'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: getRoom,
    }),
    defineAction({
      name: 'create_room',
      title: 'Create a room',
      description: 'Create a room with an optional id, name and metadata.',
      input: CreateRoomInput,
      output: Room,
      scope: 'rooms:write',
      route: 'createRoom',
      credentials: ['api_key'],
      access: 'write',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: createRoom,
    }),
    defineAction({
      name: 'update_room',
      title: 'Update a room',
      description: 'Rename a room or merge its metadata (a null value removes a key).',
      input: UpdateRoomArguments,
      output: Room,
      scope: 'rooms:write',
      route: 'updateRoom',
      credentials: ['api_key'],
      access: 'write',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: updateRoom,
    }),
    defineAction({
      name: 'delete_room',
      title: 'Delete a room',
      description: 'Delete a room for good.',
      input: RoomRef,
      output: Deleted,
      scope: 'rooms:write',
      route: 'deleteRoom',
      credentials: ['api_key'],
      access: 'destructive',
      confirmation: 'destructive',
      workspaceTypes: ALL_WORKSPACES,
      run: deleteRoom,
    }),
  ],
};
