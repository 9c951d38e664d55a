import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, PROJECT_ROOT } from '../generate.js';
import { compileDiagnostics } from './compile-diagnostics.js';

/**
 * The compile errors of the generated skeleton, on a document of any shape: a small document is
 * generated into a temporary folder, handlers that respond off its contract are compiled against it
 * with the project's settings, and the text of each error is what a developer reads.
 */

const problem = {
  description: 'a problem',
  content: { 'application/problem+json': { schema: { type: 'object', properties: { title: { type: 'string' } } } } },
};
const pet = {
  type: 'object',
  required: ['id', 'name'],
  additionalProperties: false,
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
};
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'errors', version: '1' },
  paths: {
    '/pets/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'get-pet',
        responses: {
          '404': problem,
          '200': { description: 'a pet', content: { 'application/json': { schema: pet } } },
        },
      },
      delete: { operationId: 'pets.delete', responses: { '204': { description: 'gone' } } },
      put: {
        responses: {
          '4XX': problem,
          '200': { description: 'a pet', content: { 'application/json': { schema: pet } } },
          '2XX': { description: 'other' },
          '102': { description: 'wait' },
          '1XX': { description: 'info' },
        },
      },
      patch: {
        operationId: 'Patch pet',
        responses: {
          default: problem,
          '200': { description: 'a pet', content: { 'application/json': { schema: pet } } },
        },
      },
    },
    '/ping': { get: { operationId: 'ping', responses: {} } },
  },
};

const SNIPPETS = {
  undeclared: `export const h: OperationHandler<'get-pet', unknown> = async () => ({ status: 201, body: { id: 1, name: 'x' } });`,
  wrongBody: `export const h: OperationHandler<'get-pet', unknown> = async () => ({ status: 200, body: { id: '1', name: 'x' } });`,
  single: `export const h: OperationHandler<'pets.delete', unknown> = async () => ({ status: 200 });`,
  ranges: `export const h: OperationHandler<'putPetsById', unknown> = async () => ({ status: 503 });`,
  withDefault: `export const h: OperationHandler<'Patch pet', unknown> = async () => ({ status: 201, body: { id: 1 } });`,
  noResponse: `export const h: OperationHandler<'ping', unknown> = async () => ({ status: 200 });`,
  valid: `export const a: OperationHandler<'get-pet', unknown> = async (input) =>
  input.path.id === 0 ? { status: 404, contentType: 'application/problem+json', body: { title: 'none' } } : { status: 200, body: { id: 1, name: 'x' } };
export const b: OperationHandler<'putPetsById', unknown> = async () => ({ status: 299 });
export const c: OperationHandler<'Patch pet', unknown> = async () => ({ status: 503, body: { title: 'down' } });
export const d: OperationHandler<'ping', unknown> = async () => {
  throw new Error('no response is declared');
};`,
} as const;
type Snippet = keyof typeof SNIPPETS;

let work = '';
const messages = new Map<Snippet, string[]>();

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'skeleton-errors-'));
  await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
  await writeFile(path.join(work, 'api.json'), JSON.stringify(DOCUMENT));
  const generation = await generate(path.join(work, 'api.json'), path.join(work, 'out'), work);
  await mkdir(path.join(work, 'out'), { recursive: true });
  for (const file of generation.files) await writeFile(file.path, file.content);
  const files = new Map<string, Snippet>();
  for (const [name, code] of Object.entries(SNIPPETS) as [Snippet, string][]) {
    const file = path.join(work, `${name}.ts`);
    await writeFile(file, `import type { OperationHandler } from './out/server.js';\n${code}\n`);
    files.set(file, name);
  }
  const serverFile = path.join(work, 'out/server.ts');
  const compiled = compileDiagnostics(PROJECT_ROOT, [...files.keys(), serverFile], {
    typeRoots: [path.join(PROJECT_ROOT, 'node_modules/@types')],
  });
  expect(compiled.get(serverFile)).toEqual([]);
  for (const [file, name] of files) messages.set(name, compiled.get(file) ?? []);
}, 60_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const only = (name: Snippet): string => {
  const found = messages.get(name) ?? [];
  expect(found, name).toHaveLength(1);
  return found[0] ?? '';
};

describe('the compile errors of a handler off the contract', () => {
  it('compiles valid handlers: a status a range covers, any status where default is declared, a handler that only throws', () => {
    expect(messages.get('valid')).toEqual([]);
  });

  it('an undeclared status: names the operation as the document writes it, its statuses in order, and the status it responds with', () => {
    const message = only('undeclared');
    expect(message.split('\n')[0]).toContain(
      `is not assignable to type 'Promise<OperationResponse<"get-pet", "200 | 404">>'`,
    );
    expect(message).toContain(`Property '[undeclaredStatus]' is missing in type '{ status: 201;`);
    expect(message).toContain(`but required in type 'UndeclaredStatus<"get-pet responds with one of 200 | 404">'`);
  });

  it('a body off its schema: names the operation, its statuses, and the field', () => {
    const message = only('wrongBody');
    expect(message).toContain('OperationResponse<"get-pet", "200 | 404">');
    expect(message).toContain("The types of 'body.id' are incompatible between these types.");
  });

  it('one declared status, ranges, an operation without an operationId, one that declares no response', () => {
    expect(only('single')).toContain('UndeclaredStatus<"pets.delete responds only with 204">');
    expect(only('ranges')).toContain(
      'UndeclaredStatus<"putPetsById responds with one of 102 | 1XX | 200 | 2XX | 4XX">',
    );
    expect(only('noResponse')).toContain('UndeclaredStatus<"ping declares no response: its handler can only throw">');
  });

  it('where default is declared every status is declared: the message is about the body, and still names the operation', () => {
    const message = only('withDefault');
    expect(message).toContain('OperationResponse<"Patch pet", "200 | default">');
    expect(message).not.toContain('[undeclaredStatus]');
  });
});
