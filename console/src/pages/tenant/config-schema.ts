/** What the modules page reads from a module's JSON schema to draw one field of its settings form. */
export type FieldKind =
  | { kind: 'boolean' }
  | { kind: 'number'; integer: boolean; min?: number; max?: number }
  | { kind: 'choice'; options: string[] }
  | { kind: 'text' }
  | { kind: 'lines' }
  | { kind: 'json' };

export interface ConfigField {
  name: string;
  label: string;
  description: string | undefined;
  field: FieldKind;
}

/** A draft value as the form holds it: a checkbox's state, or the text of an input. */
export type Draft = boolean | string;

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null;

function choices(schema: Schema): string[] | undefined {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return schema.enum;
  const branches = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : [];
  const consts = branches.map((b) => (isSchema(b) ? b.const : undefined));
  if (consts.length > 0 && consts.every((c): c is string => typeof c === 'string')) return consts;
  return undefined;
}

function kindOf(schema: Schema): FieldKind {
  const options = choices(schema);
  if (options !== undefined) return { kind: 'choice', options };
  const number = (key: string) => (typeof schema[key] === 'number' ? { [key]: schema[key] as number } : {});
  switch (schema.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'integer':
    case 'number':
      return {
        kind: 'number',
        integer: schema.type === 'integer',
        ...number('minimum'),
        ...number('maximum'),
      };
    case 'string':
      return { kind: 'text' };
    case 'array':
      return isSchema(schema.items) && schema.items.type === 'string' ? { kind: 'lines' } : { kind: 'json' };
    default:
      return { kind: 'json' };
  }
}

/** `maxLivePerRoom` -> `Max live per room`. */
function labelOf(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The fields of a module's settings: one per top-level property of its config schema, in its order. */
export function configFields(schema: Schema): ConfigField[] {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  return Object.entries(properties)
    .filter((entry): entry is [string, Schema] => isSchema(entry[1]))
    .map(([name, property]) => ({
      name,
      label: labelOf(name),
      description: typeof property.description === 'string' ? property.description : undefined,
      field: kindOf(property),
    }));
}

/** The form's text (or checkbox state) for a value of the tenant's configuration. */
export function draftOf(field: FieldKind, value: unknown): Draft {
  switch (field.kind) {
    case 'boolean':
      return value === true;
    case 'lines':
      return Array.isArray(value) ? value.join('\n') : '';
    case 'json':
      return value === undefined ? '' : JSON.stringify(value, null, 2);
    default:
      return value === undefined || value === null ? '' : String(value);
  }
}

/**
 * The configuration to send from the form's drafts. What cannot be read as its type (a number that is
 * not one) is sent as typed, so the service's validation names the problem next to the field; JSON that
 * does not parse is the one problem found here, returned by field name.
 */
export function configFrom(
  fields: readonly ConfigField[],
  drafts: Record<string, Draft>,
): { config: Record<string, unknown> } | { errors: Record<string, string> } {
  const config: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const { name, field } of fields) {
    const draft = drafts[name];
    if (draft === undefined) continue;
    if (typeof draft === 'boolean') {
      config[name] = draft;
      continue;
    }
    const text = draft.trim();
    if (field.kind === 'number') {
      if (text !== '') config[name] = Number.isFinite(Number(text)) ? Number(text) : text;
    } else if (field.kind === 'lines') {
      config[name] =
        text === ''
          ? []
          : text
              .split('\n')
              .map((line) => line.trim())
              .filter((line) => line !== '');
    } else if (field.kind === 'json') {
      if (text === '') continue;
      try {
        config[name] = JSON.parse(text);
      } catch {
        errors[name] = 'is not valid JSON';
      }
    } else {
      config[name] = draft;
    }
  }
  return Object.keys(errors).length === 0 ? { config } : { errors };
}
