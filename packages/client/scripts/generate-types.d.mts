/** The command that regenerates the client's types (named by the stale-types test). */
export const REGENERATE_COMMAND: string;
/** Each generated file's name (inside src/generated/) and its fresh contents. */
export function generate(): Promise<Record<string, string>>;
/** The generated files whose committed contents differ from a fresh generation. */
export function staleFiles(): Promise<string[]>;
