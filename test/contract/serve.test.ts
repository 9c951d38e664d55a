import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/project-root.js';
import { serve, servingLines, type Serving } from 'contract-first';

/**
 * `npm run serve` on a document whose server has a path (Redocly's museum, toolkit/test/fixtures/third-party/):
 * by default the paths are served as the document writes them, with --under-servers under the
 * server's path, and a documented path asked for under the other base gets a 404 that
 * says where it is served.
 */
const MUSEUM = path.join(PROJECT_ROOT, 'toolkit/test/fixtures/third-party/redocly-museum.yaml');
const BASE = '/_mock/docs/openapi/museum-api';
// The museum's operations ask for HTTP Basic credentials, which the contract server only checks are there.
const credentials = { Authorization: `Basic ${Buffer.from('user:password').toString('base64')}` };

async function get(serving: Serving, target: string): Promise<{ status: number; body: { detail?: string } }> {
  const response = await fetch(`${serving.url}${target}`, { headers: credentials });
  return { status: response.status, body: (await response.json()) as { detail?: string } };
}

describe('npm run serve, by default', () => {
  let serving: Serving;
  beforeAll(async () => {
    serving = await serve({ input: MUSEUM, port: 0, log: () => undefined });
  }, 60_000);
  afterAll(async () => {
    await serving.close();
  });

  it('serves the paths as the document writes them', async () => {
    expect((await get(serving, '/museum-hours')).status).toBe(200);
  });

  it('responds to a documented path under the server’s path with a 404 that says where it is served', async () => {
    expect(await get(serving, `${BASE}/museum-hours`)).toEqual({
      status: 404,
      body: {
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: `GET /museum-hours is served at /museum-hours: this server mounts the paths as the document writes them (serve --under-servers mounts them under ${BASE})`,
      },
    });
    const ticket = await get(serving, `${BASE}/tickets/a1b2/qr`);
    expect([ticket.status, ticket.body.detail]).toEqual([
      404,
      expect.stringMatching(/^GET \/tickets\/\{ticketId\}\/qr is served at \/tickets\/a1b2\/qr: /),
    ]);
  });

  it('responds to a path the document does not have with a plain 404', async () => {
    for (const target of ['/nothing', `${BASE}/nothing`]) {
      const notFound = await get(serving, target);
      expect([notFound.status, notFound.body.detail]).toEqual([404, expect.not.stringContaining('served at')]);
    }
  });

  it('prints where it serves, and a request to try', () => {
    expect(servingLines('redocly-museum.yaml', serving)).toEqual([
      `serving redocly-museum.yaml (8 operations) at ${serving.url}`,
      `  try: curl -u user:password ${serving.url}/museum-hours`,
      '  Ctrl-C stops',
    ]);
  });
});

describe('npm run serve --under-servers', () => {
  let serving: Serving;
  beforeAll(async () => {
    serving = await serve({ input: MUSEUM, port: 0, underServers: true, log: () => undefined });
  }, 60_000);
  afterAll(async () => {
    await serving.close();
  });

  it('serves the paths under the server’s path, as a generated server does', async () => {
    expect((await get(serving, `${BASE}/museum-hours`)).status).toBe(200);
  });

  it('responds to a documented path without the server’s path with a 404 that says where it is served', async () => {
    expect(await get(serving, '/museum-hours')).toEqual({
      status: 404,
      body: {
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: `GET /museum-hours is served at ${BASE}/museum-hours: this server mounts the paths under the path of the document's servers (serve without --under-servers mounts them as the document writes them)`,
      },
    });
  });

  it('prints each base it serves under, from the command line', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'node_modules/contract-first/bin/contract-first.js'),
        'serve',
        '--input',
        MUSEUM,
        '--port',
        '0',
        '--under-servers',
      ],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, INIT_CWD: PROJECT_ROOT },
      },
    );
    let stdout = '';
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('Ctrl-C stops')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${String(code)}: ${stdout}`)));
      });
    } finally {
      child.kill();
    }
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? '';
    expect(stdout).toBe(
      [
        `serving ${MUSEUM} (8 operations) at ${url}${BASE}`,
        `  try: curl -u user:password ${url}${BASE}/museum-hours`,
        '  Ctrl-C stops',
        '',
      ].join('\n'),
    );
  }, 60_000);
});

describe('npm run serve with no --input', () => {
  it("serves the project's first document of redocly.yaml, having printed what the toolkit's lint rules find", async () => {
    const child = spawn(
      process.execPath,
      [path.join(PROJECT_ROOT, 'node_modules/contract-first/bin/contract-first.js'), 'serve', '--port', '0'],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, INIT_CWD: PROJECT_ROOT },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('Ctrl-C stops')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${String(code)}: ${stdout}${stderr}`)));
      });
      const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? '';
      expect(stdout).toContain('serving openapi/openapi.yaml (13 operations) at ');
      expect(stdout).toContain(`  try: curl ${url}/v1/bank`);
      expect((await fetch(`${url}/v1/bank`)).status).toBe(200);
      // Its one server is on localhost, which Redocly's minimal ruleset warns of; our own rules turn that off.
      expect(stderr).toMatch(/^lint: openapi\/openapi\.yaml: 1 warning \(the toolkit's rules/m);
    } finally {
      child.kill();
    }
  }, 60_000);
});

describe('npm run serve of a document whose example the validator would refuse, and an extension bundling leaves a reference in', () => {
  // Bump.sh's topics: a list of pages, each read from a Markdown file, which Redocly's bundler leaves as a $ref.
  const DOCUMENT = `openapi: 3.1.0
info: { title: Cards, version: '1' }
x-topics:
  - title: Getting started
    content: { $ref: ./getting-started.md }
paths:
  /cards:
    post:
      operationId: createCard
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Card' }
      responses:
        '201':
          description: The card, without its code
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Card' }
              example: { id: c1, holder: Ada, cvc: '123' }
components:
  schemas:
    Card:
      type: object
      required: [holder]
      properties:
        id: { type: string, readOnly: true }
        holder: { type: string, minLength: 1 }
        cvc: { type: string, writeOnly: true, pattern: '^[0-9]{3}$' }
      additionalProperties: false
`;
  let dir: string;
  let serving: Serving;
  const logged: string[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'serve-slips-'));
    writeFileSync(path.join(dir, 'openapi.yaml'), DOCUMENT);
    writeFileSync(path.join(dir, 'getting-started.md'), '# Getting started\n');
    serving = await serve({ input: path.join(dir, 'openapi.yaml'), port: 0, log: (line) => logged.push(line) });
  }, 60_000);
  afterAll(async () => {
    await serving.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('responds with a value drawn from the schema, without the write-only code the example shows', async () => {
    const response = await fetch(`${serving.url}/cards`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ holder: 'Ada', cvc: '123' }),
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({ holder: expect.any(String), ...('id' in body ? { id: expect.any(String) } : {}) });
    expect(logged).toContainEqual(
      expect.stringMatching(
        /^warning: #\/paths\/~1cards\/post\/responses\/201\/content\/application~1json\/example: .*\/cvc is write-only/,
      ),
    );
  });

  it('says it leaves the extension out of what it serves', () => {
    expect(logged).toContainEqual(
      expect.stringMatching(
        /^warning: #\/x-topics: this extension holds a \$ref to "\.\/getting-started\.md" that bundling left unresolved/,
      ),
    );
  });
});
