import { type ErrorDetail, InvalidRequest } from './errors.ts';

/**
 * How deep any JSON the service accepts may nest (request bodies, MCP messages, realtime frames): deep
 * enough for any real document, shallow enough that nothing downstream (validation, storage, JSON
 * operators) walks thousands of levels.
 */
export const MAX_JSON_DEPTH = 32;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What cannot be stored: PostgreSQL text and jsonb hold no NUL character, and a lone UTF-16 surrogate is
 * not a character at all. Undefined when `text` is fine.
 */
export function textProblem(text: string, field: string): ErrorDetail | undefined {
  if (text.includes('\u0000')) {
    return { field, message: 'must not contain the NUL character (\\u0000)', code: 'invalid_character' };
  }
  if (LONE_SURROGATE.test(text)) {
    return { field, message: 'must be valid Unicode (it holds a lone surrogate)', code: 'invalid_character' };
  }
  return undefined;
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * The first problem of a parsed JSON value: nested deeper than `maxDepth`, or a string (value or key) that
 * cannot be stored. Walks iteratively, and never below the depth limit, so any input is cheap to check.
 */
export function jsonProblem(
  value: unknown,
  root: string,
  maxDepth = MAX_JSON_DEPTH,
): ErrorDetail | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: current, path, depth } = item;
    if (typeof current === 'string') {
      const problem = textProblem(current, path);
      if (problem !== undefined) return problem;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxDepth) {
      return { field: path, message: `nests deeper than ${maxDepth} levels`, code: 'too_deep' };
    }
    if (Array.isArray(current)) {
      current.forEach((element, index) => {
        stack.push({ value: element, path: pointer(path, index), depth: depth + 1 });
      });
      continue;
    }
    for (const [key, element] of Object.entries(current)) {
      const keyProblem = textProblem(key, pointer(path, key));
      if (keyProblem !== undefined) return { ...keyProblem, message: `has a key that ${keyProblem.message}` };
      stack.push({ value: element, path: pointer(path, key), depth: depth + 1 });
    }
  }
  return undefined;
}

/** 400 `invalid_request` naming the field, when `value` has a `jsonProblem`. */
export function assertStorableJson(value: unknown, root: string): void {
  const problem = jsonProblem(value, root);
  if (problem !== undefined)
    throw new InvalidRequest(`invalid request: ${problem.field} ${problem.message}`, [problem]);
}
