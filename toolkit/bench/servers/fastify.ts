/**
 * Fastify 5 with the document's JSON Schemas for the query, the body and the response (its Ajv
 * validates the request, fast-json-stringify writes the response) and the token checked in a hook.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { itemsDocument } from '../documents.js';
import { announce, created, page, PORT, TOKEN, type NewItem } from './items.js';

type Json = Record<string, unknown>;

/** The document's schemas with every `$ref` replaced by what it names (the document has no cycles). */
const schemas = (itemsDocument()['components'] as { schemas: Record<string, Json> }).schemas;
function inline(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(inline);
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') return inline(schemas[ref.replace('#/components/schemas/', '')]);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
}
const schema = (name: string): Json => inline(schemas[name]) as Json;

const AUTHORIZATION = `Bearer ${TOKEN}`;
const app = Fastify({ logger: false });
app.addHook('onRequest', async (request, reply) => {
  if (request.headers.authorization !== AUTHORIZATION)
    await reply.code(401).send({ code: 'unauthorized', message: 'No valid token.' });
});
const errors = { 400: schema('Error'), 401: schema('Error') };
app.get(
  '/items',
  {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          status: schema('ItemStatus'),
          cursor: { type: 'string', maxLength: 200 },
        },
      },
      response: { 200: schema('ItemPage'), ...errors },
    },
  },
  async (request) => page((request.query as { limit: number }).limit),
);
app.post(
  '/items',
  { schema: { body: schema('NewItem'), response: { 201: schema('Item'), ...errors } } },
  async (request, reply) => reply.code(201).send(created(request.body as NewItem)),
);
await app.listen({ port: PORT, host: '127.0.0.1' });
announce((app.server.address() as AddressInfo).port);
