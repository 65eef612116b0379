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

/**
 * One filter as a SQL condition (values bound, never inlined). `roomId` and `actorId` are text columns;
 * a property is compared as JSON, so `"1"` and `1` differ.
 */
function condition(filter: Filter, p: SqlParams): string {
  const column = COLUMNS.get(filter.property);
  const values = Array.isArray(filter.value) ? filter.value : [filter.value];
  const first = values[0];
  const name = column === undefined ? p.add(filter.property) : '';
  const target =
    column === undefined
      ? {
          value: `(properties -> ${name}::text)`,
          text: `properties ->> ${name}::text`,
          type: 'jsonb',
          of: json,
        }
      : { value: column, text: column, type: 'text', of: (v: unknown) => String(v) };
  switch (filter.op) {
    case 'eq':
      return `${target.value} = ${p.add(target.of(first))}::${target.type}`;
    case 'neq':
      return `${target.value} is distinct from ${p.add(target.of(first))}::${target.type}`;
    case 'in':
      return `${target.value} = any(${p.add(values.map(target.of))}::${target.type}[])`;
    case 'contains':
      return `strpos(lower(${target.text}), lower(${p.add(String(first))}::text)) > 0`;
    case 'gt':
    case 'lt': {
      // Checked by the verb: numeric comparisons are for properties.
      if (column !== undefined) return 'false';
      const op = filter.op === 'gt' ? '>' : '<';
      return `(case when jsonb_typeof(${target.value}) = 'number' then (${target.text})::numeric end) ${op} ${p.add(Number(first))}::numeric`;
    }
  }
}

/** Filters ANDed (`true` for none). */
export function compileFilters(filters: readonly Filter[], p: SqlParams): string {
  if (filters.length === 0) return 'true';
  return filters.map((f) => `(${condition(f, p)})`).join(' and ');
}
