/**
 * How long the generator and the type checker take on a large document: a synthetic OpenAPI 3.1
 * document of several megabytes (by default 400 operations on 200 paths, each with parameters, a
 * request body and responses over a few hundred component schemas), generated into a temporary
 * folder, scaffolded, then type-checked with the project's strict settings.
 *
 * Usage: npx tsx scripts/bench/generator.ts [--paths N (200)] [--schemas N (300)] [--keep]
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { scaffoldHandlers } from 'contract-first';
import { runAsMain } from 'contract-first/cli';
import { generate } from 'contract-first';
import { PROJECT_ROOT } from './processes.js';

const run = promisify(execFile);

/** A schema with a dozen properties of every kind, some of them references to other schemas. */
function schema(index: number, count: number): Record<string, unknown> {
  // Models from the 50th on refer to two of the first fifty, which refer to nothing: references two deep.
  const ref = (offset: number) => ({
    $ref: `#/components/schemas/Model${(index * (offset + 6)) % Math.min(50, count)}`,
  });
  return {
    type: 'object',
    description: `Model ${index}: ${'a long description of what this model holds and why; '.repeat(8)}`,
    required: ['id', 'name', 'createdAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string', minLength: 1, maxLength: 200 },
      createdAt: { type: 'string', format: 'date-time' },
      amountCents: { type: 'integer', format: 'int64', minimum: 0, maximum: 99999999999 },
      status: { type: 'string', enum: ['ACTIVE', 'SUSPENDED', 'CLOSED', 'PENDING'] },
      tags: { type: 'array', items: { type: 'string', maxLength: 30 }, maxItems: 20 },
      note: { type: ['string', 'null'], maxLength: 500 },
      ratio: { type: 'number', minimum: 0, maximum: 1 },
      active: { type: 'boolean' },
      ...(index >= 50 ? { parent: ref(1), children: { type: 'array', items: ref(2) } } : {}),
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };
}

export function largeDocument(paths: number, schemas: number): Record<string, unknown> {
  const pathItems: Record<string, unknown> = {};
  for (let i = 0; i < paths; i += 1) {
    const model = `#/components/schemas/Model${i % schemas}`;
    const errors = {
      '400': { $ref: '#/components/responses/Problem' },
      '404': { $ref: '#/components/responses/Problem' },
      default: { $ref: '#/components/responses/Problem' },
    };
    pathItems[`/resources${i}`] = {
      get: {
        operationId: `list-resources-${i}`,
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
          { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 512 } },
          {
            name: 'status',
            in: 'query',
            style: 'form',
            explode: false,
            schema: { type: 'array', items: { type: 'string', enum: ['ACTIVE', 'CLOSED'] } },
          },
        ],
        responses: {
          '200': {
            description: 'a page',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { items: { type: 'array', items: { $ref: model } }, next: { type: 'string' } },
                },
              },
            },
          },
          ...errors,
        },
      },
      post: {
        operationId: `create_resource_${i}`,
        parameters: [
          { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', minLength: 12 } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: model } } } },
        responses: {
          '201': {
            description: 'created',
            headers: { Location: { required: true, schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: model } } },
          },
          ...errors,
        },
      },
    };
    pathItems[`/resources${i}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      get: {
        responses: {
          '200': { description: 'one', content: { 'application/json': { schema: { $ref: model } } } },
          ...errors,
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'A large document', version: '1' },
    paths: pathItems,
    components: {
      schemas: Object.fromEntries(Array.from({ length: schemas }, (_, i) => [`Model${i}`, schema(i, schemas)])),
      responses: {
        Problem: {
          description: 'a problem',
          content: {
            'application/problem+json': {
              schema: { type: 'object', properties: { title: { type: 'string' }, detail: { type: 'string' } } },
            },
          },
        },
      },
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { paths: { type: 'string' }, schemas: { type: 'string' }, keep: { type: 'boolean' } },
  });
  const paths = Number(values.paths ?? 200);
  const schemas = Number(values.schemas ?? 300);
  const work = await mkdtemp(path.join(os.tmpdir(), 'generator-bench-'));
  try {
    await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
    const input = path.join(work, 'large.json');
    await writeFile(input, JSON.stringify(largeDocument(paths, schemas), null, 2));
    const size = (await stat(input)).size;

    const started = performance.now();
    const generation = await generate(input, path.join(work, 'out'), work);
    await mkdir(path.join(work, 'out'), { recursive: true });
    for (const file of generation.files) await writeFile(file.path, file.content);
    const generated = performance.now();
    await scaffoldHandlers(generation, path.join(work, 'handlers'), path.join(work, 'out'));
    const scaffolded = performance.now();

    await writeFile(
      path.join(work, 'tsconfig.json'),
      JSON.stringify({
        extends: path.join(PROJECT_ROOT, 'tsconfig.json'),
        compilerOptions: { noEmit: true, types: ['node'], typeRoots: [path.join(PROJECT_ROOT, 'node_modules/@types')] },
        include: ['out/*.ts', 'handlers/*.ts'],
      }),
    );
    const typecheckStarted = performance.now();
    const tsc = await run(path.join(PROJECT_ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(work, 'tsconfig.json')], {
      cwd: work,
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      () => 'no errors',
      (error: { stdout?: string }) => `errors:\n${(error.stdout ?? '').slice(0, 4000)}`,
    );
    const typechecked = performance.now();
    const secs = (from: number, to: number): string => `${((to - from) / 1000).toFixed(1)} s`;
    const outSize = generation.files.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0);
    console.log(
      `document: ${(size / 1e6).toFixed(1)} MB, ${generation.model.operations.length} operations, ${schemas} schemas`,
    );
    console.log(
      `generate: ${secs(started, generated)} (${(outSize / 1e6).toFixed(1)} MB written); scaffold: ${secs(generated, scaffolded)}`,
    );
    console.log(`type-check (tsc, strict, output and stubs): ${secs(typecheckStarted, typechecked)}, ${tsc}`);
  } finally {
    if (values.keep === true) console.log(`kept in ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
}

runAsMain(import.meta.url, async () => {
  await main();
  return 0;
});
