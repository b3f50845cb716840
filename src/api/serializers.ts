/**
 * Response serializers built with only the shared schemas each response reaches. Fastify hands
 * every response all shared schemas (app.addSchema), and fast-json-stringify checks and indexes
 * each one again for every response it compiles: most of an app build's CPU. The same serializers
 * come from the schemas a response can reach through `$ref`.
 */
import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Schemas = Readonly<Record<string, unknown>>;

/** The shared schemas `schema` reaches through `$ref`s ('Id#…' names the shared schema Id), transitively. */
export function reachedSchemas(schema: unknown, shared: Schemas): Record<string, unknown> {
  const reached: Record<string, unknown> = {};
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const id = ref.slice(0, Math.max(0, ref.indexOf('#')));
      if (id !== '' && !(id in reached) && id in shared) {
        reached[id] = shared[id];
        visit(shared[id]);
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(schema);
  return reached;
}

/** Fastify's serializer factory, given for each response the shared schemas it reaches. */
export const buildSerializer: SerializerFactory = (external, options) => {
  const select = SerializerSelector();
  const shared = (external ?? {}) as Schemas;
  return (route) => select(reachedSchemas(route.schema, shared), options)(route);
};
