import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { createContractApp, type ContractRoute, type ContractSecurityScheme } from 'contract-first/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldHandlers } from 'contract-first';
import { generate, type Generation } from 'contract-first';
import { PROJECT_ROOT } from '../helpers/project-root.js';
import { serve, type Serving } from 'contract-first';
import { sampleRequestWithAnyCredentials } from 'contract-first/testing';
import { rawRequest } from '../../scripts/proof/raw-http.js';

/**
 * Public OpenAPI 3.1 documents that are not ours (toolkit/test/fixtures/third-party/, with their sources and
 * licences in SOURCES.md), and the generator's own edge cases and mistakes (toolkit/test/fixtures/generator/):
 * each is generated and scaffolded, the output type-checks with the project's strict settings, and
 * served (at the paths as the document writes them, serve's default), each operation the document
 * gives enough valid examples for responses to a valid request from its stub
 * (with a response that passes response validation) and rejects an invalid one with 400 before the
 * stub runs.
 */
const FIXTURES = [
  ...[
    'redocly-museum',
    'oai-tictactoe',
    'readme-petstore',
    'readme-petstore-simple',
    'readme-parameters-style',
    'readme-webhooks',
  ].map((name) => path.join(PROJECT_ROOT, 'toolkit/test/fixtures/third-party', `${name}.yaml`)),
  path.join(PROJECT_ROOT, 'toolkit/test/fixtures/generator/mistakes.yaml'),
  path.join(PROJECT_ROOT, 'toolkit/test/fixtures/generator/edge-cases.yaml'),
];

const run = promisify(execFile);
let work = '';
const generations = new Map<string, Generation>();

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'third-party-'));
  // The generated code resolves express's types as a project's code would.
  await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
  for (const fixture of FIXTURES) {
    const name = path.basename(fixture, '.yaml');
    const out = path.join(work, name, 'out');
    const generation = await generate(fixture, out, PROJECT_ROOT);
    await mkdir(out, { recursive: true });
    for (const file of generation.files) await writeFile(file.path, file.content);
    await scaffoldHandlers(generation, path.join(work, name, 'handlers'), out);
    generations.set(name, generation);
  }
}, 120_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the generator on documents that are not ours', () => {
  it('generates every document, deterministically', async () => {
    for (const fixture of FIXTURES) {
      const name = path.basename(fixture, '.yaml');
      const again = await generate(fixture, path.join(work, name, 'out'), PROJECT_ROOT);
      expect(again.files, name).toEqual(generations.get(name)?.files);
    }
  });

  it('writes output and stubs that type-check with the project’s strict settings', async () => {
    const config = {
      extends: path.join(PROJECT_ROOT, 'tsconfig.json'),
      compilerOptions: { noEmit: true, types: ['node'], typeRoots: [path.join(PROJECT_ROOT, 'node_modules/@types')] },
      include: ['*/out/*.ts', '*/handlers/*.ts'],
    };
    await writeFile(path.join(work, 'tsconfig.json'), JSON.stringify(config));
    const tsc = path.join(PROJECT_ROOT, 'node_modules/.bin/tsc');
    const result = await run(tsc, ['-p', path.join(work, 'tsconfig.json')], { cwd: work }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
    expect((await readdir(work)).length).toBeGreaterThan(FIXTURES.length);
  }, 120_000);

  it('types the webhooks of a document that has only webhooks, and serves no route for it', () => {
    const webhooks = generations.get('readme-webhooks');
    expect(webhooks?.model.operations).toEqual([]);
    expect(webhooks?.model.webhooks.length).toBeGreaterThan(0);
    expect(webhooks?.files.find((file) => file.path.endsWith('server.ts'))?.content).toContain(
      'export const sendWebhook',
    );
  });

  it('hands each parameter to the handler typed by its schema: an integer path parameter or header is a number', async () => {
    const out = path.join(work, 'edge-cases', 'out');
    const generated = (await import(pathToFileURL(path.join(out, 'server.ts')).href)) as {
      routeList: readonly ContractRoute[];
      securitySchemes: Readonly<Record<string, ContractSecurityScheme>>;
      mountOperations: never;
    };
    const stubs = (await import(pathToFileURL(path.join(work, 'edge-cases', 'handlers', 'index.ts')).href)) as {
      handlers: Record<string, unknown>;
    };
    let seen: unknown;
    const app = createContractApp({
      apiSpec: path.join(out, 'openapi.json'),
      routeList: generated.routeList,
      securitySchemes: generated.securitySchemes,
      mountOperations: generated.mountOperations,
      handlers: {
        ...stubs.handlers,
        get_pet: async (input: unknown) => {
          seen = input;
          return { status: 200, body: { id: 7, name: 'Rex' } };
        },
      },
      validateResponses: true,
    });
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const { port } = listening.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/v2/pets/5?api_key=k`, {
        headers: { 'X-Count': '3', 'X-Trace': 't', Cookie: 'session=s' },
      });
      expect(response.status, await response.text()).toBe(200);
      expect(seen).toEqual({
        path: { 'pet-id': 5 },
        query: {},
        headers: { 'X-Trace': 't', 'X-Count': 3 },
        cookies: {},
        body: undefined,
      });
    } finally {
      listening.closeAllConnections();
      listening.close();
    }
  });

  it('takes request bodies of every media type an operation declares: multipart, text, octet-stream, +json', async () => {
    const serving = await serve({
      input: FIXTURES.at(-1) ?? '',
      port: 0,
      handlersDir: path.join(work, 'edge-cases', 'handlers'),
      log: () => undefined,
    });
    try {
      const upload = `${serving.url}/files:upload`;
      const form = new FormData();
      form.append('note', 'hello');
      const bodies: Array<[string, RequestInit]> = [
        ['multipart/form-data', { body: form }],
        ['text/plain', { body: 'hello', headers: { 'Content-Type': 'text/plain' } }],
        [
          'application/octet-stream',
          { body: new Uint8Array([0, 1, 2]), headers: { 'Content-Type': 'application/octet-stream' } },
        ],
        [
          'application/merge-patch+json',
          { body: '{"a":1}', headers: { 'Content-Type': 'application/merge-patch+json' } },
        ],
      ];
      for (const [type, init] of bodies) {
        const response = await fetch(upload, { method: 'POST', ...init });
        expect([type, response.status], await response.text()).toEqual([type, 202]);
      }
      const wrongType = await fetch(upload, {
        method: 'POST',
        body: '<a/>',
        headers: { 'Content-Type': 'application/xml' },
      });
      expect(wrongType.status).toBe(415);
      const badJson = await fetch(upload, {
        method: 'POST',
        body: '[1]',
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      expect(badJson.status).toBe(400);
    } finally {
      await serving.close();
    }
  });

  it('sends a webhook with the generated sender, typed by the document', async () => {
    const generated = (await import(pathToFileURL(path.join(work, 'edge-cases', 'out', 'server.ts')).href)) as {
      sendWebhook: (
        url: string,
        name: string,
        request: { headers: object; body: unknown },
      ) => Promise<{ status: number; body?: unknown }>;
    };
    const received: Array<{ method: string; type: string | undefined; body: string }> = [];
    const { createServer } = await import('node:http');
    const subscriber = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ method: req.method ?? '', type: req.headers['content-type'], body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => subscriber.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { port } = subscriber.address() as AddressInfo;
      const delivery = await generated.sendWebhook(`http://127.0.0.1:${port}/hooks`, 'petAdopted', {
        headers: {},
        body: { id: 1, name: 'Rex' },
      });
      expect(delivery.status).toBe(200);
      expect(received).toEqual([{ method: 'POST', type: 'application/json', body: '{"id":1,"name":"Rex"}' }]);
    } finally {
      subscriber.close();
    }
  });

  describe.each(FIXTURES.map((fixture) => [path.basename(fixture, '.yaml'), fixture] as const))(
    '%s, served',
    (name, fixture) => {
      let serving: Serving;
      beforeAll(async () => {
        serving = await serve({
          input: fixture,
          port: 0,
          handlersDir: path.join(work, name, 'handlers'),
          log: () => undefined,
        });
      }, 60_000);
      afterAll(async () => {
        await serving.close();
      });

      it('responds to a valid request from the stub, and rejects an invalid one with 400 before it runs', async () => {
        const generation = generations.get(name);
        if (generation === undefined) throw new Error(`${name} was not generated`);
        const tried: string[] = [];
        for (const operation of generation.model.operations) {
          const sample = sampleRequestWithAnyCredentials(
            generation.document,
            operation,
            generation.model.securitySchemes,
            generation.rejectedExamples,
          );
          if (sample === undefined) continue;
          // Over a plain socket: fetch cannot send every method a document may declare (TRACE).
          const send = async (target: string) => {
            const response = await rawRequest(
              Number(new URL(serving.url).port),
              {
                method: sample.method,
                target,
                headers: Object.entries(sample.headers),
                body: sample.body === undefined ? undefined : Buffer.from(sample.body),
              },
              10_000,
            );
            return { status: response.status, text: response.body.toString() };
          };
          const valid = await send(sample.target);
          // Reached the stub: its example response (which passed response validation) or its 501.
          expect([operation.key, valid.status < 300 || valid.status === 501], valid.text).toEqual([
            operation.key,
            true,
          ]);
          const invalid = await send(
            `${sample.target}${sample.target.includes('?') ? '&' : '?'}not_a_parameter_of_the_operation=1`,
          );
          expect([operation.key, invalid.status], invalid.text).toEqual([operation.key, 400]);
          tried.push(operation.key);
        }
        if (generation.model.operations.length > 0)
          expect(tried.length, `${name}: operations with examples`).toBeGreaterThan(0);
      }, 60_000);
    },
  );
});
