import { ConfigError, type Env, text } from './parse.ts';

/** `owner/name`; required once a dispatch token is set (the token alone names no repository). */
export function mobileBuildRepository(env: Env): string | undefined {
  const raw = text(env, 'SVC_MOBILE_BUILD_REPOSITORY');
  if (raw === undefined) {
    if (text(env, 'SVC_MOBILE_BUILD_DISPATCH_TOKEN') === undefined) return undefined;
    throw new ConfigError(
      'SVC_MOBILE_BUILD_REPOSITORY',
      'owner/name of the repository that builds the apps, required when SVC_MOBILE_BUILD_DISPATCH_TOKEN is set',
      'nothing',
      { secret: true },
    );
  }
  if (!/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/.test(raw)) {
    throw new ConfigError('SVC_MOBILE_BUILD_REPOSITORY', 'owner/name, e.g. acme/white-label-app', raw);
  }
  return raw;
}
