import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createSign, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptEnvironment, startScriptNodeFlags } from '../../scripts/bench/processes.js';
import { DEMO_PENDING_TRANSFERS } from '../../server/sandbox/pending-transfers.js';
import { hasChromium, launchChromium, NO_CHROMIUM, openPage } from '../helpers/chromium.js';
import { runScript } from '../helpers/script.js';
import { eventually, transferBody } from './support.js';

// A first `npm start`, as a new user runs it: what the start script runs (the build: server,
// dashboard pages, API references; then node with its flags on .build/server/main.js) on a new
// embedded database in a fresh directory. Its printed dashboard login works at once in Chromium:
// the demo organization's transfers wait there, one is approved and another rejected with no setup
// step, and the approved one's row reaches SUCCEEDED or FAILED on the page without a reload. The API
// references are served at /docs and /docs/dashboard, and an unknown path's 404 names them. Its
// printed demo credentials drive a signed transfer to SUCCEEDED, then SIGTERM: it stops accepting,
// finishes the request in flight, and exits 0 after closing the database. Chromium is Debian's, as
// for the dashboard's other browser tests; without it the browser part skips.

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, '.build', 'server', 'main.js');

let built = false;
/** `npm run build` once for the file, whichever of its suites runs first (or alone, under -t). */
function buildOnce(): void {
  if (built) return;
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
  built = true;
}

/** The one line every start on the embedded database says (server/main.ts, embeddedDatabaseDurability). */
const EMBEDDED_DATABASE_LINE =
  'The embedded database survives a killed process, but a power cut or a kernel crash may lose writes it has ' +
  'already acknowledged: PGlite does not flush its files to disk (no fsync). Set DATABASE_URL=postgres://… for PostgreSQL.';

/** The JSON log lines of a server's stdout. */
function jsonLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

interface DemoCredentials {
  baseUrl: string;
  organizationId: string;
  clientId: string;
  clientSecret: string;
  privateKeyPem: string;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

const payee = (kind: 'covered' | 'notCovered'): string =>
  DEMO_PENDING_TRANSFERS.find((spec) => spec.kind === kind)?.accountName ?? kind;

describe('npm start', () => {
  let directory: string;
  let child: ChildProcessWithoutNullStreams;
  let stdout = '';
  let stderr = '';
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let port: number;
  let base: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'pps-start-'));
    // The server reads what the build wrote from its working directory (the dashboard's pages in
    // .build/, the API references in generated/): the project's own, in an otherwise empty one.
    for (const built of ['.build', 'generated']) symlinkSync(join(ROOT, built), join(directory, built));
    port = await freePort();
    // The network's delay leaves time to see an approved transfer PROCESSING on the dashboard.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...startScriptEnvironment(),
      PORT: String(port),
      PAYMENT_NETWORK_DELAY_MS: '1000',
      LOG_LEVEL: 'info',
    };
    // The embedded database under ./.data of the working directory: the first-run experience.
    delete env['DATABASE_URL'];
    delete env['NODE_ENV'];
    delete env['PUBLIC_URL'];
    buildOnce();
    child = spawn(process.execPath, [...startScriptNodeFlags(), MAIN], { cwd: directory, env });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // 'close', not 'exit': the process may be gone before everything it wrote has been read.
    exited = new Promise((done) => child.once('close', (code, signal) => done({ code, signal })));
    base = `http://127.0.0.1:${port}`;
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`the server exited early: ${stderr}`);
      return (
        stdout.includes('A demo organization was created') &&
        stdout.includes('Then POST /v1/transfer/') &&
        stdout.includes('The API reference:')
      );
    }, 60_000);
    if (hasChromium) browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  });

  const logLines = (): Record<string, unknown>[] => jsonLines(stdout);

  it('says in one line, before it listens, what the embedded database survives', () => {
    const lines = logLines();
    const said = lines.filter((line) => line['msg'] === EMBEDDED_DATABASE_LINE);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: 40, database: 'pglite' });
    expect(lines.indexOf(said[0]!)).toBeLessThan(lines.findIndex((line) => line['msg'] === 'listening'));
  });

  it('prints the dashboard login, the waiting transfers and where the API reference is', () => {
    expect(stdout).toMatch(/^ {2}username: \S+$/m);
    expect(stdout).toMatch(/^ {2}password: \S+$/m);
    expect(stdout).toContain(`${DEMO_PENDING_TRANSFERS.length} transfers wait there for a decision`);
    expect(stdout).toContain(
      `The API reference: http://localhost:${port}/docs (the dashboard's: http://localhost:${port}/docs/dashboard)`,
    );
  });

  it("serves the partner API's reference at /docs and the dashboard's at /docs/dashboard", async () => {
    for (const [where, title] of [
      ['/docs', 'Partner Payments'],
      ['/docs/dashboard', 'Partner Dashboard API'],
    ] as const) {
      const response = await fetch(`${base}${where}`);
      expect(response.status, where).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await response.text();
      expect(html).toMatch(new RegExp(`<title>[^<]*${title}[^<]*</title>`));
      expect(html).toContain('</html>');
    }
  });

  it("responds to an unknown path with the contract's Error, naming the reference", async () => {
    for (const [where, reference] of [
      ['/no-such-path', '/docs'],
      ['/v1/transfers', '/docs'],
      ['/dashboard/api/nothing', '/docs/dashboard'],
    ] as const) {
      const response = await fetch(`${base}${where}`);
      expect(response.status, where).toBe(404);
      expect(await response.json()).toEqual({
        message: `No such path. The API reference is at http://localhost:${port}${reference}`,
        type: 'NotFound',
      });
    }
  });

  it.skipIf(!hasChromium)(
    hasChromium
      ? 'in Chromium, the printed operator approves one waiting transfer and rejects another; the approved one settles on the page'
      : NO_CHROMIUM,
    async () => {
      if (browser === undefined) throw new Error('no browser');
      const username = /^ {2}username: (\S+)$/m.exec(stdout)?.[1] ?? '';
      const password = /^ {2}password: (\S+)$/m.exec(stdout)?.[1] ?? '';
      const { context, page, problems } = await openPage(browser, base);

      await page.goto('/dashboard');
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in' }).click();

      // The demo's transfers wait, pending first.
      const pendingBadges = page.locator('tr[data-transfer-id] .badge', { hasText: 'PENDING' });
      await expect.poll(() => pendingBadges.count()).toBe(DEMO_PENDING_TRANSFERS.length);
      // A mark in the page's own window: gone if the page were reloaded.
      await page.evaluate('window.notReloaded = true');

      const approved = page.locator('tr[data-transfer-id]', { hasText: payee('covered') });
      const rejected = page.locator('tr[data-transfer-id]', { hasText: payee('notCovered') });
      await approved.getByRole('button', { name: /^Approve/ }).click();
      await expect.poll(() => approved.locator('.badge').textContent()).toBe('PROCESSING');

      await rejected.getByRole('button', { name: /^Reject/ }).click();
      await page.getByLabel('Reason for rejecting').fill('Above the organization balance');
      await page.getByRole('button', { name: 'Reject transfer' }).click();
      await expect.poll(() => rejected.locator('.badge').textContent()).toBe('REJECTED');

      // The network settles it after PAYMENT_NETWORK_DELAY_MS; the page asks again until it shows.
      await expect
        .poll(() => approved.locator('.badge').textContent(), { timeout: 20_000 })
        .toMatch(/^(SUCCEEDED|FAILED)$/);
      expect(await approved.textContent()).toContain(`Approved by ${username}`);
      expect(await page.evaluate('window.notReloaded === true')).toBe(true);
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it("lets `npm run demo` walk a partner's day with the credentials it kept: all eight steps, a retry one transfer", async () => {
    // In the server's directory, as a user runs it: the demo reads .data/demo-credentials.json there.
    const {
      code,
      stdout: walked,
      stderr: complaints,
    } = await runScript('operations/demo.ts', [], { cwd: directory, timeoutMs: 90_000 });
    expect({ code, complaints }).toEqual({ code: 0, complaints: '' });
    const steps = walked
      .split('\n')
      .filter((text) => text.startsWith('== '))
      .map((text) => text.split(' ')[1]);
    expect(steps).toEqual(['1.', '2.', '3.', '4.', '5.', '6.', '7.', '8.']);
    expect(walked).toContain('Idempotent-Replayed: true');
    expect(walked).toMatch(/\nDone in [0-9.]+ s\.\n$/);
  }, 120_000);

  it('prints working credentials, and a signed transfer goes PENDING → PROCESSING → SUCCEEDED; SIGTERM drains and exits 0', async () => {
    const credentials = JSON.parse(
      readFileSync(join(directory, '.data', 'demo-credentials.json'), 'utf8'),
    ) as DemoCredentials;
    expect(stdout).toContain(`client id:     ${credentials.clientId}`);
    expect(stdout).toContain(`client secret: ${credentials.clientSecret}`);
    expect(readFileSync(join(directory, '.data', 'demo-private-key.pem'), 'utf8')).toBe(credentials.privateKeyPem);

    // The curl recipe, done by hand: Basic token request, then signed writes.
    const tokenResponse = await fetch(`${base}/v1/oauth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const signed = (path: string): Record<string, string> => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      return {
        Authorization: `Bearer ${token}`,
        'Idempotency-Key': randomUUID(),
        'X-Partner-Request-Timestamp': timestamp,
        'X-Partner-Signature': createSign('RSA-SHA256')
          .update(`POST${path}${timestamp}`)
          .sign(credentials.privateKeyPem, 'base64'),
      };
    };
    const created = await fetch(`${base}/v1/transfer`, {
      method: 'POST',
      headers: { ...signed('/v1/transfer'), 'Content-Type': 'application/json' },
      body: JSON.stringify(transferBody({ amountCents: 150_000 })),
    });
    const transfer = (await created.json()) as { id: string; status: string };
    expect(created.status).toBe(200);
    expect(transfer.status).toBe('PENDING');

    const executePath = `/v1/transfer/${transfer.id}/execute`;
    const executed = await fetch(`${base}${executePath}`, { method: 'POST', headers: signed(executePath) });
    expect(executed.status).toBe(200);
    expect(((await executed.json()) as { status: string }).status).toBe('PROCESSING');

    await eventually(async () => {
      const current = await fetch(`${base}/v1/transfer/${transfer.id}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      return ((await current.json()) as { status: string }).status === 'SUCCEEDED';
    });

    // A request in flight when SIGTERM arrives. `Expect: 100-continue` makes the server confirm it
    // has taken the request (it responds with 100 Continue before the body is sent), so the signal
    // certainly finds it in flight; the body follows only after the server has begun to shut down.
    const form = `grant_type=client_credentials&client_id=${credentials.clientId}&client_secret=${credentials.clientSecret}`;
    const inFlight = new Promise<{ status: number; body: string; connection: string | undefined }>((done, fail) => {
      const req = httpRequest(
        `${base}/v1/oauth/token`,
        {
          method: 'POST',
          agent: false,
          headers: {
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(form),
            Expect: '100-continue',
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => done({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
        },
      );
      req.on('error', fail);
      req.on('continue', () => {
        child.kill('SIGTERM');
        // Once the server says it is shutting down, it accepts no new connection; then the body.
        eventually(async () => logLines().some((line) => line['msg'] === 'shutting down'))
          .then(async () => {
            await expect(fetch(`${base}/healthz`)).rejects.toThrow();
            req.end(form);
          })
          .catch(fail);
      });
      req.flushHeaders();
    });
    const received = await inFlight;
    expect(received.status, received.body).toBe(200);
    expect(JSON.parse(received.body)).toMatchObject({ token_type: 'Bearer' });
    expect(received.connection).toBe('close');

    expect(await exited).toEqual({ code: 0, signal: null });
    const lines = logLines();
    expect(lines.find((line) => line['msg'] === 'shutting down')).toMatchObject({ signal: 'SIGTERM', inFlight: 1 });
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped' });
    // The database was closed: the embedded database's lock is released.
    expect(existsSync(join(directory, '.data', 'pglite.lock'))).toBe(false);

    // The log: one line per request with id, method, path, status and duration; never a secret.
    const requests = lines.filter((line) => line['msg'] === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(5);
    for (const line of requests) {
      expect(line).toMatchObject({
        requestId: expect.any(String),
        method: expect.any(String),
        path: expect.any(String),
        status: expect.any(Number),
        durationMs: expect.any(Number),
      });
    }
    const logText = lines.map((line) => JSON.stringify(line)).join('\n');
    expect(logText).not.toContain(credentials.clientSecret);
    expect(logText).not.toContain(token);
    expect(logText).not.toContain('BEGIN');
    expect(stderr).toBe('');
  }, 60_000);
});

describe("the server's settings", () => {
  it('rejects a DATABASE_POOL_SIZE it cannot use, naming the setting, before opening anything', () => {
    buildOnce();
    for (const value of ['0', '101', 'four']) {
      const result = spawnSync(process.execPath, [...startScriptNodeFlags(), MAIN], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_POOL_SIZE: value, PORT: '0' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        `DATABASE_POOL_SIZE must be an integer from 1 to 100 (got ${JSON.stringify(value)})`,
      );
    }
  });
});

describe('NODE_ENV=production on the embedded database', () => {
  let directory: string;

  beforeAll(() => {
    buildOnce();
  }, 90_000);

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'pps-production-'));
  });

  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  /** The environment of `npm start` in production: DATABASE_URL and EMBEDDED_DATABASE only as given. */
  function productionEnvironment(given: Record<string, string>): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...startScriptEnvironment(),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      PAYMENT_NETWORK_DELAY_MS: '200',
    };
    for (const name of ['DATABASE_URL', 'EMBEDDED_DATABASE', 'WEB_CONCURRENCY']) delete env[name];
    return { ...env, ...given };
  }

  function startRefused(given: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [...startScriptNodeFlags(), MAIN], {
      cwd: directory,
      env: { ...productionEnvironment(given), PORT: '0' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('refuses to start without EMBEDDED_DATABASE=accept-no-fsync, saying why and what to do, before opening anything', () => {
    const { status, stdout, stderr } = startRefused({});
    expect(status).toBe(1);
    expect(stderr).toBe(
      'NODE_ENV=production with the embedded database (DATABASE_URL unset): refusing to start. The embedded ' +
        'database (PGlite) never flushes its files to disk (no fsync): it survives a killed process, but a power cut ' +
        'or a kernel crash can lose writes it has already acknowledged, or leave its files unrecoverable. Set ' +
        'DATABASE_URL=postgres://… to run on PostgreSQL, which flushes every commit to disk before responding; or, to ' +
        'run on the embedded database anyway and accept that loss, set EMBEDDED_DATABASE=accept-no-fsync.\n',
    );
    expect(stdout).toBe('');
    expect(existsSync(join(directory, '.data'))).toBe(false);
  });

  it('rejects an EMBEDDED_DATABASE it does not know, naming the one value, and an in-memory database outright', () => {
    const unknown = startRefused({ EMBEDDED_DATABASE: 'yes' });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('EMBEDDED_DATABASE must be accept-no-fsync or unset (got "yes")\n');

    const inMemory = startRefused({ DATABASE_URL: 'memory://', EMBEDDED_DATABASE: 'accept-no-fsync' });
    expect(inMemory.status).toBe(1);
    expect(inMemory.stderr).toContain('NODE_ENV=production with DATABASE_URL=memory://: refusing to start.');
    expect(existsSync(join(directory, '.data'))).toBe(false);
  });

  it('starts with EMBEDDED_DATABASE=accept-no-fsync, saying in one line what the embedded database survives', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [...startScriptNodeFlags(), MAIN], {
      cwd: directory,
      env: { ...productionEnvironment({ EMBEDDED_DATABASE: 'accept-no-fsync' }), PORT: String(port) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once('close', (code, signal) => done({ code, signal })),
    );
    try {
      await eventually(async () => {
        if (child.exitCode !== null) throw new Error(`the server exited early: ${stderr}`);
        return jsonLines(stdout).some((line) => line['msg'] === 'listening');
      }, 60_000);
      const lines = jsonLines(stdout);
      const said = lines.filter((line) => line['msg'] === EMBEDDED_DATABASE_LINE);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({ level: 40, database: 'pglite' });
      expect(lines.find((line) => line['msg'] === 'listening')).toMatchObject({
        database: 'pglite',
        validateResponses: false,
      });
      expect((await fetch(`http://127.0.0.1:${port}/v1/bank`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stderr).toBe('');
  }, 90_000);
});
