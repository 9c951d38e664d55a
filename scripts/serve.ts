/**
 * `npm run serve -- --input FILE [--port N] [--handlers DIR]`: an instant contract server. It
 * generates FILE into a temporary folder, scaffolds a stub for each operation (the document's
 * example of its first success answer, or 501), and serves them behind the same request and
 * response validation as the service's, so a document can be tried with curl or a client before a
 * handler exists. With --handlers, the stubs live in DIR: stubs that exist there are served as
 * they are (edit them to answer something else), missing ones are added.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Server } from 'node:http';
import type { Express, IRouter, RequestHandler } from 'express';
import { createContractApp, type ContractRoute, type ContractSecurityScheme } from '../server/toolkit/contract-server.js';
import { createHttpServer } from '../server/toolkit/http-server.js';
import { BundleError } from './codegen/bundle.js';
import { GeneratorError } from './codegen/operations.js';
import { scaffoldHandlers } from './codegen/scaffold.js';
import { generate } from './generate.js';
import { parseFlags, runAsMain } from './cli.js';

export const USAGE = `Usage: npm run serve -- --input FILE [--port N] [--handlers DIR]

  --input FILE     the OpenAPI 3.1 document to serve, YAML or JSON
  --port N         the port (default 4010; 0 picks a free one)
  --handlers DIR   keep the stubs in DIR (missing ones are added, existing ones served as they are)
  --help           show this text`;

/** What the generated server.ts gives the contract server. */
interface GeneratedServer {
  readonly routeList: readonly ContractRoute[];
  readonly securitySchemes: Readonly<Record<string, ContractSecurityScheme>>;
  readonly mountOperations: (router: IRouter, handlers: unknown, invoke: unknown, before: (route: ContractRoute) => readonly RequestHandler[]) => void;
}

export interface ServeOptions {
  readonly input: string;
  readonly port: number;
  readonly handlersDir?: string;
  readonly log: (line: string) => void;
}

export interface Serving {
  readonly url: string;
  readonly operations: number;
  close(): Promise<void>;
}

/** Generates and scaffolds `input` into `work`, and builds the contract server of it. */
async function prepare(options: ServeOptions, work: string): Promise<{ app: Express; operations: number }> {
  // The generated TypeScript is loaded as ES modules, as the project's own is.
  await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
  const out = path.join(work, 'out');
  const handlersDir = options.handlersDir ?? path.join(work, 'handlers');
  const generation = await generate(options.input, out, process.cwd());
  for (const warning of generation.warnings) options.log(`warning: ${warning.pointer}: ${warning.message}`);
  await mkdir(out, { recursive: true });
  for (const file of generation.files) await writeFile(path.resolve(file.path), file.content);
  await scaffoldHandlers(generation, handlersDir, out);

  const server = (await import(pathToFileURL(path.join(out, 'server.ts')).href)) as GeneratedServer;
  const { handlers } = (await import(pathToFileURL(path.join(handlersDir, 'index.ts')).href)) as { handlers: unknown };
  const app = createContractApp({
    apiSpec: path.join(out, 'openapi.json'),
    routeList: server.routeList,
    securitySchemes: server.securitySchemes,
    mountOperations: server.mountOperations as never,
    handlers,
    validateResponses: true,
    log: options.log,
  });
  return { app, operations: server.routeList.length };
}

/** Generates, scaffolds and serves `input`; resolves once the server listens. */
export async function serve(options: ServeOptions): Promise<Serving> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'contract-server-'));
  let listening: Server;
  let operations: number;
  try {
    const prepared = await prepare(options, work);
    operations = prepared.operations;
    listening = await new Promise<Server>((resolve, reject) => {
      const http = createHttpServer(prepared.app);
      http.once('error', reject);
      http.listen(options.port, '127.0.0.1', () => resolve(http));
    });
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  const address = listening.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}`,
    operations,
    async close() {
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
      await rm(work, { recursive: true, force: true });
    },
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(argv, { input: { type: 'string' }, port: { type: 'string' }, handlers: { type: 'string' }, help: { type: 'boolean' } }, USAGE);
  if (typeof values === 'number') return values;
  const port = Number(values.port ?? 4010);
  if (values.input === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${values.input === undefined ? '--input is required' : '--port must be a whole number from 0 to 65535'}\n\n${USAGE}`);
    return 2;
  }
  // Paths on the command line are read from where it was typed (npm runs scripts at the root).
  const here = process.env['INIT_CWD'] ?? process.cwd();
  process.chdir(here);
  try {
    const serving = await serve({
      input: path.resolve(values.input),
      port,
      ...(values.handlers === undefined ? {} : { handlersDir: path.resolve(values.handlers) }),
      log: (line) => console.error(line),
    });
    console.log(`serving ${values.input} (${serving.operations} operations) at ${serving.url}; Ctrl-C stops`);
    const stop = (): void => {
      void serving.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return -1;
  } catch (error) {
    if (error instanceof GeneratorError || error instanceof BundleError) {
      console.error(`cannot serve: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

runAsMain(import.meta.url, main);
