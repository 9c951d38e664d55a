import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDocument } from '../../src/codegen/operations.js';
import { scaffoldHandlers } from '../../src/codegen/scaffold.js';
import type { OpenApiDocument } from '../../src/codegen/bundle.js';

const document = (paths: Record<string, unknown>): OpenApiDocument =>
  ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths }) as unknown as OpenApiDocument;
const withExample = {
  get: {
    operationId: 'get-thing',
    responses: {
      '200': {
        description: 'a thing',
        headers: { 'X-Count': { required: true, schema: { type: 'integer' }, example: 3 } },
        content: { 'application/json': { schema: { type: 'object' }, examples: { one: { value: { id: 1 } } } } },
      },
    },
  },
};

describe('--scaffold', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'scaffold-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a stub per operation: the example of its first success response with its required headers, else 501', async () => {
    const first = document({
      '/thing': withExample,
      '/other': { post: { responses: { '201': { description: 'made', content: { 'application/json': {} } } } } },
    });
    const written = await scaffoldHandlers(
      { model: readDocument(first), document: first },
      path.join(dir, 'handlers'),
      path.join(dir, 'out'),
    );
    expect(written).toEqual(['get-thing.ts', 'post-other.ts', 'index.ts']);
    const thing = await readFile(path.join(dir, 'handlers/get-thing.ts'), 'utf8');
    expect(thing).toContain('export const getThing: OperationHandler<"get-thing", unknown>');
    expect(thing).toContain('status: 200,');
    expect(thing).toContain('headers: {"X-Count":"3"},');
    expect(thing).toContain('"id": 1');
    expect(await readFile(path.join(dir, 'handlers/post-other.ts'), 'utf8')).toContain(
      'throw new NotImplementedError("postOther")',
    );
    expect(await readFile(path.join(dir, 'handlers/index.ts'), 'utf8')).toContain('"get-thing": getThing,');
  });

  it('never changes a file that exists; a second run adds only the new operations’ stubs', async () => {
    const mine = '// my own handler\n';
    await writeFile(path.join(dir, 'handlers/get-thing.ts'), mine);
    const index = await readFile(path.join(dir, 'handlers/index.ts'), 'utf8');
    const second = document({
      '/thing': withExample,
      '/other': { post: { responses: { '201': { description: 'made' } } } },
      '/new': { delete: { responses: { '204': { description: 'gone' } } } },
    });
    const written = await scaffoldHandlers(
      { model: readDocument(second), document: second },
      path.join(dir, 'handlers'),
      path.join(dir, 'out'),
    );
    expect(written).toEqual(['delete-new.ts']);
    expect(await readFile(path.join(dir, 'handlers/get-thing.ts'), 'utf8')).toBe(mine);
    expect(await readFile(path.join(dir, 'handlers/index.ts'), 'utf8')).toBe(index);
    expect((await readdir(path.join(dir, 'handlers'))).sort()).toEqual([
      'delete-new.ts',
      'get-thing.ts',
      'index.ts',
      'post-other.ts',
    ]);
    expect(
      await scaffoldHandlers(
        { model: readDocument(second), document: second },
        path.join(dir, 'handlers'),
        path.join(dir, 'out'),
      ),
    ).toEqual([]);
  });
});
