import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { analyticsHooks } from './hooks.ts';
import { analyticsIds } from './ids.ts';
import { FunnelInput, FunnelResult, QueryInput, QueryResult } from './query-schema.ts';
import { analyticsRoutes } from './routes.ts';
import { AnalyticsConfig } from './schema.ts';
import { queryAnalytics } from './verbs/query-analytics.ts';
import { runFunnel } from './verbs/run-funnel.ts';

export const analyticsModule: ModuleManifest = {
  name: 'analytics',
  title: 'Analytics',
  description:
    'Event ingestion from servers and browsers (deduplicated by messageId) and a query API: counts, uniques, breakdowns and funnels in any time zone.',
  version: '1.0.0',
  scopes: ['analytics:read', 'analytics:write'],
  sessionScopes: ['analytics:write'],
  eventTypes: [],
  configSchema: AnalyticsConfig,
  idPrefixes: analyticsIds.prefixes,
  routes: analyticsRoutes,
  migrations: new URL('./migrations/', import.meta.url),
  hooks: analyticsHooks,
  retention: [
    {
      name: 'analytics_message_ids',
      table: 'analytics_message_ids',
      timeColumn: 'received_at',
      defaultAgeMs: 8 * 86_400_000,
      description: 'messageIds kept for dedupe (at least 7 days; a later resend is recorded again).',
    },
  ],
  actions: [
    defineAction({
      name: 'analytics_query',
      title: 'Query analytics',
      description:
        'Count events, unique actors, sums or averages of a property over a date range (e.g. preset last_7d), optionally per hour/day/week/month in a time zone, per property value (breakdown) and with filters.',
      input: QueryInput,
      output: QueryResult,
      scope: 'analytics:read',
      route: 'queryAnalytics',
      credentials: ['api_key'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: queryAnalytics,
    }),
    defineAction({
      name: 'analytics_funnel',
      title: 'Analytics funnel',
      description:
        'How many unique actors went through ordered steps (events, with optional filters) within a window, e.g. $room.joined then $auction.bid.placed.',
      input: FunnelInput,
      output: FunnelResult,
      scope: 'analytics:read',
      route: 'analyticsFunnel',
      credentials: ['api_key'],
      access: 'read',
      confirmation: 'never',
      workspaceTypes: ALL_WORKSPACES,
      run: runFunnel,
    }),
  ],
};
