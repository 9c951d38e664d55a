/**
 * The documents the runtime benchmark serves: a small API of items (a list with query parameters
 * and a create with a JSON body, both behind a bearer token) whose traffic is measured, and one of
 * many operations whose start and first requests are timed.
 */

type Json = Record<string, unknown>;

const ERROR = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', maxLength: 64 },
    message: { type: 'string', maxLength: 1000 },
  },
};

/** The schemas of one resource, named with `prefix` (`Item`, `Resource17`). */
function resourceSchemas(prefix: string): Json {
  return {
    [prefix]: {
      type: 'object',
      required: ['id', 'name', 'priceCents', 'status', 'tags', 'createdAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', format: 'uuid' },
        name: { type: 'string', minLength: 1, maxLength: 100 },
        priceCents: { type: 'integer', minimum: 0, maximum: 100_000_000 },
        status: { $ref: `#/components/schemas/${prefix}Status` },
        tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 30 } },
        createdAt: { type: 'string', format: 'date-time' },
      },
    },
    [`${prefix}Status`]: { type: 'string', enum: ['active', 'archived'] },
    [`New${prefix}`]: {
      type: 'object',
      required: ['name', 'priceCents'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100 },
        priceCents: { type: 'integer', minimum: 0, maximum: 100_000_000 },
        status: { $ref: `#/components/schemas/${prefix}Status` },
        tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 30 } },
      },
    },
    [`${prefix}Page`]: {
      type: 'object',
      required: ['items', 'nextCursor'],
      additionalProperties: false,
      properties: {
        items: { type: 'array', items: { $ref: `#/components/schemas/${prefix}` } },
        nextCursor: { type: ['string', 'null'], maxLength: 200 },
      },
    },
  };
}

const errorResponse = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** The four operations of one resource at `base` (`/items`), named with `prefix`. */
function resourcePaths(base: string, prefix: string, id: string): Json {
  const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
  const json = (schema: Json): Json => ({ 'application/json': { schema } });
  const idParameter = {
    name: `${id}Id`,
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
    example: '3f7c0a52-7a5e-4b1e-9f0e-1d2c3b4a5f60',
  };
  const failures = { '400': errorResponse('The request is invalid.'), '401': errorResponse('No valid token.') };
  return {
    [base]: {
      get: {
        operationId: `list${prefix}s`,
        summary: `A page of ${id}s`,
        parameters: [
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            example: 20,
          },
          { name: 'status', in: 'query', schema: ref(`${prefix}Status`), example: 'active' },
          { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 }, example: 'c2' },
        ],
        responses: { '200': { description: 'The page.', content: json(ref(`${prefix}Page`)) }, ...failures },
      },
      post: {
        operationId: `create${prefix}`,
        summary: `Create a ${id}`,
        requestBody: { required: true, content: json(ref(`New${prefix}`)) },
        responses: {
          '201': { description: 'Created.', content: json(ref(prefix)) },
          ...failures,
          '415': errorResponse('The body is not JSON.'),
        },
      },
    },
    [`${base}/{${id}Id}`]: {
      parameters: [idParameter],
      get: {
        operationId: `get${prefix}`,
        summary: `One ${id}`,
        responses: {
          '200': { description: `The ${id}.`, content: json(ref(prefix)) },
          ...failures,
          '404': errorResponse('No such item.'),
        },
      },
      delete: {
        operationId: `delete${prefix}`,
        summary: `Delete a ${id}`,
        responses: { '204': { description: 'Deleted.' }, ...failures, '404': errorResponse('No such item.') },
      },
    },
  };
}

function document(title: string, paths: Json, schemas: Json): Json {
  return {
    openapi: '3.1.0',
    info: { title, version: '1.0.0', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: 'http://localhost:3000' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: { ...schemas, Error: ERROR },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}

/** The items API whose traffic is measured: listItems, createItem, getItem, deleteItem. */
export function itemsDocument(): Json {
  return document('Items', resourcePaths('/items', 'Item', 'item'), resourceSchemas('Item'));
}

/** A document of `resources` × 4 operations, each resource with its own schemas. */
export function manyOperationsDocument(resources: number): Json {
  let paths: Json = {};
  let schemas: Json = {};
  for (let n = 1; n <= resources; n += 1) {
    paths = { ...paths, ...resourcePaths(`/r${n}/things`, `Thing${n}`, `thing${n}`) };
    schemas = { ...schemas, ...resourceSchemas(`Thing${n}`) };
  }
  return document(`${resources * 4} operations`, paths, schemas);
}
