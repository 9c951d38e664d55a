import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorResponseForms } from './error-response-media.js';

const problem = { description: 'A problem', content: { 'application/problem+json': { schema: { type: 'object' } } } };
const document = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/pets': {
      get: {
        responses: {
          '200': { description: 'ok' },
          '400': { $ref: '#/components/responses/Problem' },
          '4XX': { description: 'other', content: { 'text/html': {} } },
        },
      },
      post: {
        responses: {
          '201': { description: 'ok' },
          '400': { description: 'no body' },
          default: { description: 'any', content: { 'application/vnd.api+json': {} } },
        },
      },
      put: {
        responses: { '200': { description: 'ok' }, '400': { description: 'xml', content: { 'application/xml': {} } } },
      },
    },
  },
  components: { responses: { Problem: problem } },
};

describe("the form of the server's own error responses", () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'error-response-media-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const file = path.join(directory, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const form = errorResponseForms(file);

  it('is the JSON media type the operation declares for the status, through its reference, range or default', () => {
    expect(form({ path: '/pets', method: 'get' }, 400)).toEqual({
      kind: 'json',
      mediaType: 'application/problem+json',
    });
    expect(form({ path: '/pets', method: 'post' }, 415)).toEqual({
      kind: 'json',
      mediaType: 'application/vnd.api+json',
    });
  });

  it('is the message as text where the document declares only a text media type, and no body where it declares none', () => {
    expect(form({ path: '/pets', method: 'get' }, 401)).toEqual({ kind: 'text', mediaType: 'text/html' });
    expect(form({ path: '/pets', method: 'post' }, 400)).toEqual({ kind: 'empty' });
  });

  it('is application/json where the document declares no response, no operation, or only media types of other kinds', () => {
    const json = { kind: 'json', mediaType: 'application/json' };
    expect(form({ path: '/pets', method: 'get' }, 500)).toEqual(json);
    expect(form({ path: '/pets', method: 'put' }, 400)).toEqual(json);
    expect(form({ path: '/nowhere', method: 'get' }, 404)).toEqual(json);
    expect(form(undefined, 404)).toEqual(json);
  });
});
