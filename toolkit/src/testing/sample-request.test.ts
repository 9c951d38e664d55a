import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { sampleRequest } from './sample-request.js';

const ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['sku', 'quantity', 'deliverBy'],
  properties: {
    sku: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
    quantity: { type: 'integer', minimum: 1, maximum: 9 },
    deliverBy: { type: 'string', format: 'date' },
    id: { type: 'string', readOnly: true },
  },
};
const document = {
  openapi: '3.1.0',
  info: { title: 'Orders', version: '1' },
  paths: {
    '/stores/{storeId}/orders': {
      parameters: [{ $ref: '#/components/parameters/StoreId' }],
      post: {
        parameters: [
          { name: 'X-Batch', in: 'header', required: true, schema: { type: 'string', pattern: '^b[0-9]{2}$' } },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } },
        },
        responses: { '201': { description: 'created' } },
      },
    },
  },
  components: {
    parameters: {
      StoreId: { name: 'storeId', in: 'path', required: true, schema: { type: 'string', pattern: '^st_[a-z]{4}$' } },
    },
    schemas: { Order: ORDER },
  },
} as unknown as OpenApiDocument;

describe('a sample request', () => {
  const route = { method: 'post', path: '/stores/{storeId}/orders' };

  it('has none without examples, unless its values may be drawn from the schemas', () => {
    expect(sampleRequest(document, route, {})).toBeUndefined();
  });

  it('draws what the document gives no example of, valid against each schema, and the same every time', () => {
    const drawn = sampleRequest(document, route, {}, undefined, { draw: true });
    expect(drawn).toBeDefined();
    expect(drawn).toEqual(sampleRequest(document, route, {}, undefined, { draw: true }));
    const [, storeId] = /^\/stores\/([^/]+)\/orders$/.exec(drawn?.target ?? '') ?? [];
    expect(decodeURIComponent(storeId ?? '')).toMatch(/^st_[a-z]{4}$/);
    expect(drawn?.headers['X-Batch']).toMatch(/^b[0-9]{2}$/);
    expect(drawn?.headers['Content-Type']).toBe('application/json');
    const ajv = new Ajv2020({ strict: false });
    addFormatsModule.default(ajv);
    const body: unknown = JSON.parse(drawn?.body ?? 'null');
    expect(ajv.validate(ORDER, body), ajv.errorsText()).toBe(true);
    // A request leaves out what only the server writes.
    expect(body).not.toHaveProperty('id');
  });

  it('sends a multipart body as text parts, drawn from its schema', () => {
    const upload = {
      openapi: '3.1.0',
      info: { title: 'Uploads', version: '1' },
      paths: {
        '/photos': {
          post: {
            requestBody: {
              required: true,
              content: {
                'multipart/form-data': {
                  schema: {
                    type: 'object',
                    required: ['caption'],
                    properties: {
                      caption: { type: 'string', enum: ['Tom'] },
                      file: { type: 'string', format: 'binary' },
                    },
                  },
                },
              },
            },
            responses: { '204': { description: 'stored' } },
          },
        },
      },
    } as unknown as OpenApiDocument;
    const drawn = sampleRequest(upload, { method: 'post', path: '/photos' }, {}, undefined, { draw: true });
    expect(drawn?.headers['Content-Type']).toBe('multipart/form-data; boundary=contract-first-sample-boundary');
    expect(drawn?.body).toBe(
      '--contract-first-sample-boundary\r\nContent-Disposition: form-data; name="caption"\r\n\r\nTom\r\n--contract-first-sample-boundary--\r\n',
    );
  });
});
