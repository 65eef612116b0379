import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serialize = (data: unknown) => string;

/**
 * Fastify's response serializers (fast-json-stringify), each compiled when its route first answers with
 * that status: compiling all of them at start-up was most of the CPU the service spent before it could
 * listen (seconds), for responses most runs never send. The output is the same serializer's.
 */
export const serializeOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const build = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let compiled: Serialize | undefined;
    return (data: unknown) => {
      compiled ??= build(route);
      return compiled(data);
    };
  };
};
