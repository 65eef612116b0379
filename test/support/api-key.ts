import { call, type Response, type TestApp } from '../helper.ts';

/** The headers of a request made with an API key. */
export const keyOf = (apiKey: string) => ({ 'x-api-key': apiKey });

/** A POST with an API key, and a JSON body when one is given: how an integration calls `/v1`. */
export function postWithKey(
  t: TestApp,
  apiKey: string,
  url: string,
  payload?: Record<string, unknown>,
): Promise<Response> {
  return call(t.app, {
    method: 'POST',
    url,
    headers: keyOf(apiKey),
    ...(payload === undefined ? {} : { payload }),
  });
}
