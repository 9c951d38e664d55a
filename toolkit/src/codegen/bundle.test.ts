import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleError, bundleAndReadDocument, bundleDocument } from './bundle.js';
import { GeneratorError } from './generator-error.js';

/** A document whose `/a` takes one query parameter of `schema`, as YAML's JSON subset. */
const documentText = (schema: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    ...extra,
    paths: {
      '/a': { get: { parameters: [{ name: 'n', in: 'query', schema }], responses: { '200': { description: 'ok' } } } },
    },
  });

let work = '';
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'bundle-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const at = path.join(work, name);
  await writeFile(at, text);
  return at;
}

describe('the bundled document as the toolkit reads it', () => {
  it('has its schemas in 2020-12’s forms, the validator’s, and a warning for each change', async () => {
    const input = await file(
      'older.yaml',
      documentText(
        { allOf: [{ type: 'integer', minimum: 1, exclusiveMinimum: true }], enum: [] },
        {
          jsonSchemaDialect: 'http://json-schema.org/draft-04/schema#',
        },
      ),
    );
    const read = await bundleAndReadDocument(input);
    const parameter = '#/paths/~1a/get/parameters/0/schema';
    expect(read.warnings.map((warning) => warning.pointer)).toEqual([
      '#/jsonSchemaDialect',
      `${parameter}/allOf/0/exclusiveMinimum`,
      `${parameter}/enum`,
    ]);
    const expected = { allOf: [{ type: 'integer', exclusiveMinimum: 1 }], not: {} };
    const schemaOf = (document: object): unknown =>
      (document as { paths: { '/a': { get: { parameters: Array<{ schema: unknown }> } } } }).paths['/a'].get
        .parameters[0]?.schema;
    expect(schemaOf(read.document)).toEqual(expected);
    // What the checker, the reference and the breaking-change gate read.
    expect(schemaOf(await bundleDocument(input))).toEqual(expected);
  });

  it('rejects a dialect it does not know: GeneratorError to the generator, BundleError to the other readers', async () => {
    const input = await file('draft-03.yaml', documentText({ $schema: 'http://json-schema.org/draft-03/schema#' }));
    await expect(bundleAndReadDocument(input)).rejects.toThrow(GeneratorError);
    const error = await bundleDocument(input).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BundleError);
    expect((error as Error).message).toContain(`Cannot read ${input}: #/paths/~1a/get/parameters/0/schema/$schema:`);
  });
});
