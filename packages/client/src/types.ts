import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';

export type { paths };
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type Media = `${string}/${string}`;

/** The paths that have an operation for `M`. */
export type PathsWithMethod<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof paths];

/** The request options of an operation: required when it has a required parameter or body (as openapi-fetch). */
export type InitParam<Init> = [keyof Init] extends [never]
  ? [(Init & { [key: string]: unknown })?]
  : undefined extends Init
    ? [(Init & { [key: string]: unknown })?]
    : [Init & { [key: string]: unknown }];

/** The successful half of an openapi-fetch result: what a throwing client resolves to. */
export type Succeeded<R> = Extract<R, { data: unknown; error?: never }>;

/** A method of the client made with `throwOnError: true`: it resolves to the answer's data or throws `SvcError`. */
export type ThrowingMethod<M extends HttpMethod> = <
  P extends PathsWithMethod<M>,
  I extends MaybeOptionalInit<paths[P], M>,
>(
  url: P,
  ...init: InitParam<I>
) => Promise<Succeeded<FetchResponse<paths[P][M] & Record<string | number, unknown>, I, Media>>>;

type OkBody<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer Body } } } };
}
  ? Body
  : never;

/** The GET paths that answer a page, `{ data: [...], nextCursor }`: what `paginate` walks. */
export type ListPath = {
  [P in PathsWithMethod<'get'>]: OkBody<P> extends { data: readonly unknown[]; nextCursor: string | null }
    ? P
    : never;
}[PathsWithMethod<'get'>];

/** One row of a list path's pages. */
export type ListItem<P extends ListPath> = OkBody<P> extends { data: readonly (infer Item)[] } ? Item : never;

/** `paginate`'s options: the list operation's own (path and query parameters); `cursor` is the iterator's. */
export type ListInit<P extends ListPath> = MaybeOptionalInit<paths[P], 'get'>;
