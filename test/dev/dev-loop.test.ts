import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevProcess, saveFile, type DevProcess } from 'contract-first/testing';
import { copyProject, type ProjectCopy } from '../../scripts/project-copy.js';

// `npm run dev` on a copy of the project (scripts/project-copy.ts): the document is edited
// there, the loop lints, generates, type-checks and restarts the copy's server on the copy's
// embedded database, and the requests go through the dev process's port.

const BANK_PATH = 'openapi/paths/v1_bank.yaml';
const BANK_HANDLER = 'server/http/handlers/banks.ts';
const PARAMETERS = '  parameters:\n    - $ref: ../components/parameters/IfNoneMatch.yaml\n';
const COUNTRY = [
  '    - name: country',
  '      in: query',
  '      required: false',
  '      description: Only the providers of this country, as its ISO 3166-1 alpha-2 code.',
  '      schema:',
  '        type: string',
  "        pattern: '^[A-Z]{2}$'",
  '',
].join('\n');
/** No description: the `parameter-description` rule of redocly.yaml fails it. */
const CURRENCY_UNDESCRIBED = [
  '    - name: currency',
  '      in: query',
  '      schema:',
  '        type: string',
  '',
].join('\n');
const CURRENCY = [
  '    - name: currency',
  '      in: query',
  '      description: Only the providers that pay out in this currency.',
  '      schema:',
  '        type: string',
  '',
].join('\n');

/** Each step waits for one line; a first start (a new database) takes the longest. */
const FIRST_START_MS = 90_000;
const STEP_MS = 30_000;
/** A step's test: its wait, and the requests after it. */
const TEST_MS = STEP_MS + 15_000;

describe('npm run dev', () => {
  let copy: ProjectCopy;
  let dev: DevProcess;
  let bankDocument: string;
  let credentials: { clientId: string; clientSecret: string; baseUrl: string };

  const file = (relative: string): string => path.join(copy.root, relative);
  const get = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${dev.baseUrl}${url}`, { headers: { Connection: 'close', ...headers } });
  const saveBankDocument = async (parameters: string): Promise<number> => {
    const after = dev.lines.length;
    expect(bankDocument).toContain(PARAMETERS);
    await saveFile(
      file(BANK_PATH),
      bankDocument.replace(PARAMETERS, () => `${PARAMETERS}${parameters}`),
    );
    return after;
  };
  const token = async (): Promise<Response> =>
    fetch(`${dev.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        Connection: 'close',
      },
      body: 'grant_type=client_credentials',
    });

  beforeAll(async () => {
    copy = await copyProject();
    bankDocument = await readFile(file(BANK_PATH), 'utf8');
    dev = await startDevProcess(copy.root);
    const { index } = await dev.waitFor(/^dev: server ready .* after start/, { after: 0, timeoutMs: FIRST_START_MS });
    // The first reference follows the first server.
    await dev.waitFor(/^dev: reference rebuilt/, { after: index, timeoutMs: STEP_MS });
  }, FIRST_START_MS + 30_000);

  afterAll(async () => {
    await dev?.stop();
    // The servers are gone with it: their graceful shutdown removed the database's lock.
    await expect(readFile(file('.data/pglite.lock'), 'utf8')).rejects.toThrow(/ENOENT/);
    await copy?.remove();
  }, 30_000);

  it(
    'starts the server on a new embedded database, with the demo organization at the dev address',
    async () => {
      credentials = JSON.parse(await readFile(file('.data/demo-credentials.json'), 'utf8')) as typeof credentials;
      expect(credentials.baseUrl).toBe(dev.baseUrl.replace('127.0.0.1', 'localhost'));
      expect((await token()).status).toBe(200);
      const rejected = await get('/v1/bank?country=EG');
      expect(rejected.status).toBe(400);
      // The dashboard's pages, bundled at start where the server reads them.
      const pages = await get('/dashboard');
      expect(pages.status).toBe(200);
      expect(await pages.text()).toMatch(/<script[^>]+src="\/dashboard\/assets\/app-[^"]+\.js"/);
      expect(await rejected.text()).toContain("Unknown query parameter 'country'");
    },
    TEST_MS,
  );

  it(
    'serves the new document after a save: a new optional query parameter is accepted, and /docs reloads',
    async () => {
      const events = await fetch(`${dev.baseUrl}/docs/events`);
      const reader = events.body?.getReader();
      if (reader === undefined) throw new Error('no event stream');
      const reloaded = (async () => {
        let text = '';
        while (!text.includes('event: reload')) {
          const { value, done } = await reader.read();
          if (done) throw new Error('the event stream ended');
          text += Buffer.from(value).toString('utf8');
        }
      })();

      const after = await saveBankDocument(COUNTRY);
      await dev.waitFor(/^dev: server ready .* after the save \(lint .*typecheck .*restart/, {
        after,
        timeoutMs: STEP_MS,
      });
      const accepted = await get('/v1/bank?country=EG');
      expect(accepted.status).toBe(200);
      // The same database: the demo organization's credentials still work.
      expect((await token()).status).toBe(200);

      await reloaded;
      await reader.cancel();
      const docs = await (await get('/docs')).text();
      expect(docs).toContain('Only the providers of this country');
      expect(docs).toContain('new EventSource("/docs/events")');
      // The dashboard's reference is rebuilt with it, at its own address.
      const dashboard = await (await get('/docs/dashboard')).text();
      expect(dashboard).toContain('Partner Dashboard API');
      expect(dashboard).toContain('new EventSource("/docs/events")');
      expect(await readFile(file('generated/openapi.json'), 'utf8')).toContain('"name": "country"');
    },
    TEST_MS,
  );

  it(
    'reports a lint error with its file and line, generates nothing, and keeps the last good server responding',
    async () => {
      const generated = await readFile(file('generated/openapi.json'), 'utf8');
      const after = await saveBankDocument(`${COUNTRY}${CURRENCY_UNDESCRIBED}`);
      const { index, line } = await dev.waitFor(/^dev: lint failed/, { after, timeoutMs: STEP_MS });
      expect(line).toContain('the last good server responds as before');
      const report = dev.lines.slice(after, index).join('\n');
      expect(report).toMatch(/openapi\/paths\/v1_bank\.yaml:\d+:\d+/);
      expect(report).toContain('parameter-description');
      expect(await readFile(file('generated/openapi.json'), 'utf8')).toBe(generated);

      expect((await get('/v1/bank?country=EG')).status).toBe(200);
      expect((await get('/v1/bank?currency=EGP')).status).toBe(400);
    },
    TEST_MS,
  );

  it(
    'serves the document again once the error is fixed',
    async () => {
      const after = await saveBankDocument(`${COUNTRY}${CURRENCY}`);
      await dev.waitFor(/^dev: server ready .* after the save/, { after, timeoutMs: STEP_MS });
      expect((await get('/v1/bank?currency=EGP&country=EG')).status).toBe(200);
    },
    TEST_MS,
  );

  it(
    'restarts on a change to the server code alone, with neither lint nor generation',
    async () => {
      const handler = await readFile(file(BANK_HANDLER), 'utf8');
      expect(handler).toContain("'public, max-age=3600'");
      const after = dev.lines.length;
      await saveFile(
        file(BANK_HANDLER),
        handler.replace("'public, max-age=3600'", () => "'public, max-age=60'"),
      );
      const { line } = await dev.waitFor(/^dev: server ready .* after the save/, { after, timeoutMs: STEP_MS });
      expect(line).not.toContain('lint');
      expect((await get('/v1/bank')).headers.get('cache-control')).toBe('public, max-age=60');
      expect((await token()).status).toBe(200);
    },
    TEST_MS,
  );
});
