/**
 * A module's scopes, `<module>:<verb>` for each verb, and the ones its session tokens carry, for a
 * manifest to spread: `...moduleScopes('chat', ['read', 'write'], ['read', 'write'])`. The verbs a session
 * gets are checked to be among the module's by `checkManifest`.
 */
export function moduleScopes<const V extends string>(
  module: string,
  verbs: readonly V[],
  sessionVerbs: readonly V[] = [],
): { scopes: string[]; sessionScopes: string[] } {
  const scope = (verb: V) => `${module}:${verb}`;
  return { scopes: verbs.map(scope), sessionScopes: sessionVerbs.map(scope) };
}
