/** Console roles, strongest first. A role may do everything the roles below it may. */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { owner: 4, admin: 3, developer: 2, viewer: 1 };

export function atLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

export const WORKSPACE_TYPES = ['commerce', 'community', 'sandbox'] as const;
export type WorkspaceType = (typeof WORKSPACE_TYPES)[number];
