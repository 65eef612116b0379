import { type Config, ConfigError } from '../../config.ts';
import { checkRetentionRule, type ModuleManifest, type RetentionRule } from '../modules/manifest.ts';
import { CORE_RETENTION } from './core-rules.ts';

/** A rule with the age it runs with: its default, or `SVC_RETENTION`'s; null = kept forever. */
export interface ActiveRetention {
  rule: RetentionRule;
  ageMs: number | null;
}

/** Core's rules, then each module's; names are unique across the service. */
export function retentionRules(modules: readonly ModuleManifest[]): RetentionRule[] {
  const rules = [...CORE_RETENTION, ...modules.flatMap((m) => m.retention ?? [])];
  const names = new Set<string>();
  for (const rule of rules) {
    checkRetentionRule(rule, 'retention');
    if (names.has(rule.name)) throw new Error(`retention rule ${rule.name} declared twice`);
    names.add(rule.name);
  }
  return rules;
}

/**
 * Each rule with its configured age. A name in `SVC_RETENTION` that no rule has is a mistake the
 * operator should hear about at start-up, not a setting silently ignored.
 */
export function activeRetention(
  rules: readonly RetentionRule[],
  retention: Pick<Config['retention'], 'ages'>,
): ActiveRetention[] {
  const known = new Set(rules.map((rule) => rule.name));
  for (const name of Object.keys(retention.ages)) {
    if (!known.has(name)) {
      throw new ConfigError('SVC_RETENTION', `rule names among ${[...known].join(', ')}`, name);
    }
  }
  return rules.map((rule) => ({ rule, ageMs: retentionAgeMs(retention, rule) }));
}

/** How long rows of `rule` are kept (ms), as configured; null = forever. For messages that cite it. */
export function retentionAgeMs(
  retention: Pick<Config['retention'], 'ages'>,
  rule: RetentionRule,
): number | null {
  return Object.hasOwn(retention.ages, rule.name) ? (retention.ages[rule.name] ?? null) : rule.defaultAgeMs;
}

/** An age as people say it: `7 days`, `1 hour`, `90 minutes`. */
export function describeAge(ms: number): string {
  const [unit, size] =
    ms % 86_400_000 === 0
      ? ['day', 86_400_000]
      : ms % 3_600_000 === 0
        ? ['hour', 3_600_000]
        : ['minute', 60_000];
  const n = Math.max(1, Math.round(ms / size));
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
