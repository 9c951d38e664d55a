import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { refusalMediaTypes } from './refusal-media.js';

const problem = { description: 'A problem', content: { 'application/problem+json': { schema: { type: 'object' } } } };
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/pets': {
      get: { responses: { '200': { description: 'ok' }, '400': { $ref: '#/components/responses/Problem' }, '4XX': { description: 'other', content: { 'text/html': {} } } } },
      post: { responses: { '201': { description: 'ok' }, default: { description: 'any', content: { 'application/vnd.api+json': {} } } } },
    },
  },
  components: { responses: { Problem: problem } },
};

describe('the media type of the server’s own refusals', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'refusal-media-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const mediaType = refusalMediaTypes(file);

  it('is the JSON media type the operation declares for the status, through its reference, range or default', () => {
    expect(mediaType({ path: '/pets', method: 'get' }, 400)).toBe('application/problem+json');
    expect(mediaType({ path: '/pets', method: 'post' }, 415)).toBe('application/vnd.api+json');
  });

  it('is application/json where the document declares no JSON media type, no response, or no operation', () => {
    expect(mediaType({ path: '/pets', method: 'get' }, 401)).toBe('application/json');
    expect(mediaType({ path: '/pets', method: 'get' }, 500)).toBe('application/json');
    expect(mediaType({ path: '/nowhere', method: 'get' }, 404)).toBe('application/json');
    expect(mediaType(undefined, 404)).toBe('application/json');
  });
});
