import type { Filter } from './store.ts';

/** Positional parameters of one statement: `add(value)` answers its placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Event fields that are columns rather than properties. A Map: a property named `constructor` or
 * `__proto__` is looked up as itself, never as a member every object inherits (that pasted SQL text).
 */
const COLUMNS: ReadonlyMap<string, string> = new Map([
  ['roomId', 'room_id'],
  ['actorId', 'actor_id'],
]);

/** A property (or `roomId`, `actorId`) as text: strings as they are, numbers and booleans as JSON. */
export function propertyText(property: string, p: SqlParams): string {
  return COLUMNS.get(property) ?? `(properties ->> ${p.add(property)}::text)`;
}

export const metricSql = {
  /** A property's value when it is a JSON number, else null (sums and averages skip it). */
  number(property: string, p: SqlParams): string {
    const name = p.add(property);
    return `(case when jsonb_typeof(properties -> ${name}::text) = 'number' then (properties ->> ${name}::text)::numeric end)`;
  },
};

const json = (v: unknown) => JSON.stringify(v);

/** One filter as a SQL condition (values bound, never inlined). */
function condition(filter: Filter, p: SqlParams): string {
  const column = COLUMNS.get(filter.property);
  const values = Array.isArray(filter.value) ? filter.value : [filter.value];
  const first = values[0];
  if (column !== undefined) {
    switch (filter.op) {
      case 'eq':
        return `${column} = ${p.add(String(first))}::text`;
      case 'neq':
        return `${column} is distinct from ${p.add(String(first))}::text`;
      case 'in':
        return `${column} = any(${p.add(values.map(String))}::text[])`;
      case 'contains':
        return `strpos(lower(${column}), lower(${p.add(String(first))}::text)) > 0`;
      default:
        // Checked by the verb: numeric comparisons are for properties.
        return 'false';
    }
  }
  const name = p.add(filter.property);
  const value = `(properties -> ${name}::text)`;
  switch (filter.op) {
    case 'eq':
      return `${value} = ${p.add(json(first))}::jsonb`;
    case 'neq':
      return `${value} is distinct from ${p.add(json(first))}::jsonb`;
    case 'in':
      return `${value} = any(${p.add(values.map(json))}::jsonb[])`;
    case 'contains':
      return `strpos(lower(properties ->> ${name}::text), lower(${p.add(String(first))}::text)) > 0`;
    case 'gt':
    case 'lt': {
      const op = filter.op === 'gt' ? '>' : '<';
      return `(case when jsonb_typeof(${value}) = 'number' then (properties ->> ${name}::text)::numeric end) ${op} ${p.add(Number(first))}::numeric`;
    }
  }
}

/** Filters ANDed (`true` for none). */
export function compileFilters(filters: readonly Filter[], p: SqlParams): string {
  if (filters.length === 0) return 'true';
  return filters.map((f) => `(${condition(f, p)})`).join(' and ');
}
