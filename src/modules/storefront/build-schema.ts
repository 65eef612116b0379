import { type Static, Type } from 'typebox';
import { closedInput, dateTime, resource } from '../../core/http/named-schemas.ts';
import { Page } from '../../core/http/pagination.ts';
import { oneOf } from '../../core/http/schemas.ts';
import { Nullable } from '../../surfaces/console/schemas.ts';
import { idPattern } from './ids.ts';
import { HttpsUrl } from './schema.ts';

/** Mobile builds: requests from the console, the build pipeline's callback, and what both answer. */

export const PLATFORMS = ['android', 'ios'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const BUILD_STATUSES = ['dev_mode', 'queued', 'failed', 'succeeded'] as const;

export const MobileBuildBody = closedInput(
  'RequestMobileBuildInput',
  'Which platform to build, and whether to submit the build to its store',
  {
    platform: oneOf(PLATFORMS, { description: 'android or ios' }),
    submitToStores: Type.Optional(Type.Boolean({ default: false, description: 'Default false' })),
  },
);
export type MobileBuildInput = Static<typeof MobileBuildBody>;

export const MobileBuild = resource(
  'MobileBuild',
  "A white-label build of an operator's app and its status",
  {
    id: Type.String(),
    operatorId: Type.String(),
    platform: oneOf(PLATFORMS),
    submitToStores: Type.Boolean(),
    requestedBy: Nullable(Type.String({ description: 'The console user (usr_...) who asked' })),
    status: oneOf(BUILD_STATUSES),
    error: Nullable(Type.String()),
    buildUrl: Nullable(Type.String()),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    completedAt: Nullable(dateTime()),
  },
);
export type MobileBuildView = Static<typeof MobileBuild>;

export const MobileBuildAnswer = resource(
  'MobileBuildRequest',
  'The build asked for, and whether it was dispatched (queued) or the server is in development mode',
  { queued: Type.Boolean(), devMode: Type.Boolean(), build: MobileBuild },
);
export const MobileBuildPage = Page(
  MobileBuild,
  'MobileBuildPage',
  "A page of the operator's mobile builds, newest first",
);

export const BuildCallbackBody = closedInput(
  'MobileBuildCallbackInput',
  "The build pipeline's report of a build's outcome",
  {
    status: oneOf(['succeeded', 'failed'] as const),
    buildUrl: Type.Optional(HttpsUrl),
    error: Type.Optional(Type.String({ maxLength: 1000 })),
  },
);
export type BuildCallbackInput = Static<typeof BuildCallbackBody>;

export const BuildParams = Type.Object({ buildId: Type.String({ pattern: idPattern('mobileBuild') }) });
