import { type Static, Type } from 'typebox';
import { Page } from '../../core/http/pagination.ts';
import { oneOf } from '../../core/http/schemas.ts';
import { Nullable } from '../../surfaces/console/schemas.ts';
import { idPattern } from './ids.ts';
import { HttpsUrl } from './schema.ts';

/** Mobile builds: requests from the console, the build pipeline's callback, and what both answer. */

export const PLATFORMS = ['android', 'ios'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const BUILD_STATUSES = ['dev_mode', 'queued', 'failed', 'succeeded'] as const;

export const MobileBuildBody = Type.Object(
  {
    platform: oneOf(PLATFORMS, { description: 'android or ios' }),
    submitToStores: Type.Optional(Type.Boolean({ default: false, description: 'Default false' })),
  },
  {
    title: 'RequestMobileBuildInput',
    description: 'Which platform to build, and whether to submit the build to its store',
    additionalProperties: false,
  },
);
export type MobileBuildInput = Static<typeof MobileBuildBody>;

export const MobileBuild = Type.Object(
  {
    id: Type.String(),
    operatorId: Type.String(),
    platform: oneOf(PLATFORMS),
    submitToStores: Type.Boolean(),
    requestedBy: Nullable(Type.String({ description: 'The console user (usr_...) who asked' })),
    status: oneOf(BUILD_STATUSES),
    error: Nullable(Type.String()),
    buildUrl: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    completedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'MobileBuild', description: "A white-label build of an operator's app and its status" },
);
export type MobileBuildView = Static<typeof MobileBuild>;

export const MobileBuildAnswer = Type.Object(
  { queued: Type.Boolean(), devMode: Type.Boolean(), build: MobileBuild },
  {
    title: 'MobileBuildRequest',
    description:
      'The build asked for, and whether it was dispatched (queued) or the server is in development mode',
  },
);
export const MobileBuildPage = Page(
  MobileBuild,
  'MobileBuildPage',
  "A page of the operator's mobile builds, newest first",
);

export const BuildCallbackBody = Type.Object(
  {
    status: oneOf(['succeeded', 'failed'] as const),
    buildUrl: Type.Optional(HttpsUrl),
    error: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  {
    title: 'MobileBuildCallbackInput',
    description: "The build pipeline's report of a build's outcome",
    additionalProperties: false,
  },
);
export type BuildCallbackInput = Static<typeof BuildCallbackBody>;

export const BuildParams = Type.Object({ buildId: Type.String({ pattern: idPattern('mobileBuild') }) });
