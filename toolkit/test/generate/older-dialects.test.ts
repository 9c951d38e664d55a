import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCheck } from '../../src/check/run.js';
import { bundleDocument } from '../../src/codegen/bundle.js';
import { compileDiagnostics } from '../../src/codegen/compile-diagnostics.js';
import { scaffoldHandlers } from '../../src/codegen/scaffold.js';
import { generate, main, PROJECT_ROOT, type Generation } from '../../src/generate.js';
import { serve, type Serving } from '../../src/serve.js';

/**
 * A document as public documents are written (test/fixtures/generator/older-dialects.yaml of this
 * package): its schemas in JSON Schema draft-04 (the document's jsonSchemaDialect) and one in
 * draft-07 (its $schema), a query parameter whose enum is empty beside an allOf, and a server URL
 * whose path has a `+`. It is generated with a warning for each keyword read otherwise than
 * written, its types compile, and served under its server's path it validates requests and
 * responses by the 2020-12 reading of its schemas; the checker reads them so too.
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/generator/older-dialects.yaml', import.meta.url));
const BASE = '/rest/Train+Travel+API/1.0.0';

const DRAFT_04 = 'JSON Schema draft-04';
const WARNINGS = [
  {
    pointer: '#/jsonSchemaDialect',
    message:
      "declares JSON Schema draft-04 for the document's schemas: they are read in JSON Schema 2020-12's forms (OpenAPI 3.1's dialect), each change named, and the declaration is left out",
  },
  {
    pointer: '#/paths/~1trips/get/parameters/0/schema/exclusiveMinimum',
    message: `${DRAFT_04}: minimum: 5 with exclusiveMinimum: true is read as exclusiveMinimum: 5, JSON Schema 2020-12's form`,
  },
  {
    pointer: '#/paths/~1trips/get/parameters/0/schema/exclusiveMaximum',
    message: `${DRAFT_04}: exclusiveMaximum: false leaves the maximum inclusive, as JSON Schema 2020-12 reads it alone; left out`,
  },
  {
    pointer: '#/components/schemas/Trip/definitions',
    message: `${DRAFT_04}: read as $defs, JSON Schema 2020-12's name for it (references into it follow)`,
  },
  {
    pointer: '#/components/schemas/Trip/dependencies',
    message: `${DRAFT_04}: read as dependentRequired ("returnDate"), JSON Schema 2020-12's forms`,
  },
  {
    pointer: '#/components/schemas/Trip/properties/route/items',
    message: `${DRAFT_04}: a list of schemas, one for each position, is read as prefixItems, JSON Schema 2020-12's form`,
  },
  {
    pointer: '#/components/schemas/Trip/properties/route/additionalItems',
    message: `${DRAFT_04}: the schema of the items past those listed is read as items, JSON Schema 2020-12's form`,
  },
  {
    pointer: '#/components/schemas/Trip/definitions/Money/id',
    message: `${DRAFT_04}: id "https://api.example.com/schemas/money.json" is read as $id "https://api.example.com/schemas/money.json", JSON Schema 2020-12's form`,
  },
  {
    pointer: '#/components/schemas/Trip/definitions/Money/properties/amount/exclusiveMinimum',
    message: `${DRAFT_04}: minimum: 0 with exclusiveMinimum: true is read as exclusiveMinimum: 0, JSON Schema 2020-12's form`,
  },
  {
    pointer: '#/components/schemas/StationCode/$schema',
    message:
      "declares JSON Schema draft-07 for this schema: it is read in JSON Schema 2020-12's forms, each change named, and the declaration is left out",
  },
  {
    pointer: '#/paths/~1fares/get/parameters/0/schema/enum',
    message:
      'an empty enum, which no value matches, and which the validator (Ajv) cannot compile: read as not: {}, which no value matches either',
  },
];

let work = '';
let generation: Generation;
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'older-dialects-'));
  await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
  generation = await generate(FIXTURE, path.join(work, 'out'), work);
}, 60_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the generator on a document of older dialects, an empty enum and a + in its server URL', () => {
  it('generates it, warning of each keyword read otherwise than written, at its JSON pointer', () => {
    expect(generation.warnings).toEqual(WARNINGS);
  });

  it('prints each warning as `contract-first generate` does', async () => {
    const printed: string[] = [];
    const error = vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      printed.push(String(line));
    });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await main(['--input', FIXTURE, '--out', path.join(work, 'printed')])).toBe(0);
    } finally {
      error.mockRestore();
      log.mockRestore();
    }
    for (const { pointer, message } of WARNINGS) expect(printed).toContain(`warning: ${pointer}: ${message}`);
  }, 60_000);

  it('writes the document with its schemas in 2020-12’s forms, which the checker reads too', async () => {
    const file = generation.files.find((candidate) => candidate.path.endsWith('openapi.json'));
    const written = JSON.parse(file?.content ?? '{}') as Record<string, unknown>;
    const read = await bundleDocument(FIXTURE);
    for (const document of [written, read]) {
      expect(document['jsonSchemaDialect']).toBeUndefined();
      const schemas = (document['components'] as { schemas: Record<string, Record<string, unknown>> }).schemas;
      expect(Object.keys(schemas['Trip'] ?? {})).toEqual(expect.arrayContaining(['$defs', 'dependentRequired']));
      expect(schemas['Trip']).not.toHaveProperty('definitions');
      expect(schemas['StationCode']).toEqual({ type: 'string', pattern: '^[A-Z]{3}$', examples: ['PAR'] });
    }
    expect(JSON.stringify(written)).not.toContain('/definitions/');
    expect(written['servers']).toEqual([{ url: `https://api.example.com${BASE}` }]);
  });

  it('writes types and stubs that compile with the project’s strict settings', async () => {
    const out = path.join(work, 'out');
    await mkdir(out, { recursive: true });
    for (const file of generation.files) await writeFile(file.path, file.content);
    const handlers = path.join(work, 'handlers');
    await scaffoldHandlers(generation, handlers, out);
    const files = [
      path.join(out, 'server.ts'),
      path.join(handlers, 'list-trips.ts'),
      path.join(handlers, 'list-fares.ts'),
    ];
    const compiled = compileDiagnostics(PROJECT_ROOT, files, {
      typeRoots: [path.join(PROJECT_ROOT, 'node_modules/@types')],
    });
    for (const file of files) expect(compiled.get(file), file).toEqual([]);
  }, 60_000);
});

describe('the document served under its server’s path', () => {
  let serving: Serving;
  beforeAll(async () => {
    serving = await serve({
      input: FIXTURE,
      port: 0,
      underServers: true,
      handlersDir: path.join(work, 'served-handlers'),
      log: () => undefined,
    });
  }, 60_000);
  afterAll(async () => {
    await serving.close();
  });

  const status = async (target: string): Promise<number> => (await fetch(`${serving.url}${target}`)).status;

  it('mounts the paths under the server’s path, `+` and all, and the validator finds their operations', async () => {
    expect(serving.bases).toEqual([`${serving.url}${BASE}`]);
    const response = await fetch(`${serving.url}${BASE}/trips?seats=6`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { id: 1, route: ['Paris', 'Lyon'], fare: { amount: 25, currency: 'EUR' }, returnDate: '2026-05-01' },
    ]);
    expect(await status(`${BASE}/stations/PAR`)).toBe(200);
    expect(await status(`${BASE}/nowhere`)).toBe(404);
    expect(await status('/rest/TrainXTravel+API/1.0.0/trips?seats=6')).toBe(404);
  });

  it('enforces the draft-04 exclusive bound as 2020-12 writes it: the bound itself is rejected, above it taken', async () => {
    expect(await status(`${BASE}/trips?seats=5`)).toBe(400);
    expect(await status(`${BASE}/trips?seats=6`)).toBe(200);
    // exclusiveMaximum: false left the maximum inclusive.
    expect(await status(`${BASE}/trips?seats=9`)).toBe(200);
    expect(await status(`${BASE}/trips?seats=10`)).toBe(400);
  });

  it('rejects every value of the query parameter whose enum is empty with a 400, never a 500', async () => {
    for (const value of ['first', 'second', '', '0'])
      expect(await status(`${BASE}/fares?class=${encodeURIComponent(value)}`)).toBe(400);
    expect(await status(`${BASE}/fares`)).toBe(400);
  });

  it('checks a path parameter by the draft-07 schema it references', async () => {
    expect(await status(`${BASE}/stations/P`)).toBe(400);
  });

  it('passes the contract checker, which reads the schemas as the server does', async () => {
    const report = await runCheck({
      input: FIXTURE,
      baseUrl: `${serving.url}${BASE}`,
      cases: 10,
      seed: 1,
      timeoutMs: 2000,
    });
    expect(report.findings).toEqual([]);
  }, 60_000);
});
