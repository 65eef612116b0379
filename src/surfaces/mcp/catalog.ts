import type { Tool } from '@modelcontextprotocol/server';
import type { TSchema } from 'typebox';
import type { ActionDefinition, ModuleManifest } from '../../core/modules/manifest.ts';

/** The argument a repeated call carries once a human approved it (when elicitation is not available). */
export const CONFIRMATION_ARGUMENT = '_confirmationToken';

type JsonObject = Record<string, unknown>;

// Action schemas are TypeBox values; MCP wants plain JSON Schema objects.
const plainSchemas = new WeakMap<TSchema, JsonObject>();
function plain(schema: TSchema): JsonObject {
  let json = plainSchemas.get(schema);
  if (json === undefined) {
    json = JSON.parse(JSON.stringify(schema)) as JsonObject;
    plainSchemas.set(schema, json);
  }
  return json;
}

/** MCP tools take an object; an action whose input is anything else gets no tool. */
export function isToolable(action: ActionDefinition): boolean {
  return plain(action.input).type === 'object';
}

export function inputSchemaOf(action: ActionDefinition): Tool['inputSchema'] {
  return plain(action.input) as Tool['inputSchema'];
}

/** Only object outputs can be `structuredContent`; others are returned as text alone. */
export function outputSchemaOf(action: ActionDefinition): Tool['outputSchema'] | undefined {
  const output = plain(action.output);
  return output.type === 'object' ? (output as Tool['outputSchema']) : undefined;
}

/**
 * Hints from the manifest. Reads are idempotent by nature; for writes the manifest does not say, so the
 * hint stays at the spec's conservative default (false). Actions work on the tenant's own data in this
 * service, never on the open world.
 */
export function annotationsOf(action: ActionDefinition): NonNullable<Tool['annotations']> {
  const readOnly = action.access === 'read';
  return {
    title: action.title,
    readOnlyHint: readOnly,
    destructiveHint: action.access === 'destructive',
    idempotentHint: readOnly,
    openWorldHint: false,
  };
}

/** The MCP tool for an action; `withConfirmation` adds the argument a confirmed repeat call carries. */
export function toolOf(action: ActionDefinition, withConfirmation: boolean): Tool {
  const input = inputSchemaOf(action);
  const outputSchema = outputSchemaOf(action);
  return {
    name: action.name,
    title: action.title,
    description: action.description,
    inputSchema: withConfirmation ? withConfirmationArgument(input) : input,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    annotations: annotationsOf(action),
  };
}

function withConfirmationArgument(input: Tool['inputSchema']): Tool['inputSchema'] {
  return {
    ...input,
    properties: {
      ...input.properties,
      [CONFIRMATION_ARGUMENT]: {
        type: 'string',
        description:
          'Only when repeating a call that answered confirmation_required, after a human approved it: ' +
          'the confirmationToken from that answer.',
      },
    },
  };
}

/** One entry of `/.well-known/mcp/manifest.json`: the tool and what decides who gets it. */
export function manifestEntryOf(module: ModuleManifest, action: ActionDefinition) {
  const outputSchema = outputSchemaOf(action);
  return {
    name: action.name,
    title: action.title,
    module: module.name,
    description: action.description,
    access: action.access,
    confirmation: action.confirmation,
    scope: action.scope,
    workspaceTypes: [...action.workspaceTypes],
    inputSchema: inputSchemaOf(action),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    annotations: annotationsOf(action),
  };
}
