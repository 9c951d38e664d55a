/**
 * `npm run serve -- --input FILE [--port N] [--handlers DIR] [--under-servers] [--stateful]`: an instant
 * contract server. It generates FILE into a temporary folder, scaffolds a stub for each operation
 * (the document's example of its first success response; where it gives none, a value generated
 * from that response's schema, serve/generated-responses.ts), and serves them behind the same
 * request and response validation as the service's, so a document can be tried with curl or a
 * client before a handler exists. With --handlers, the stubs live in DIR: stubs that exist there
 * are served as they are (edit them to respond with something else), missing ones are added.
 *
 * The paths are served as the document writes them (`/museum-hours`), as mock servers do; with
 * --under-servers, under the path of each of the document's servers, as a generated project's
 * server mounts them. A documented path asked for under the other base gets a 404 response
 * that says where it is served.
 *
 * With --stateful, the mock has memory (serve/stateful.ts): what a create makes is held, and the
 * operations the document pairs with it (its links, its `Location` header, the names of path
 * parameters) read, list, change and delete it; the other operations respond as without it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Server } from 'node:http';
import type { Express, IRouter, RequestHandler } from 'express';
import { createContractApp, type ContractRoute, type ContractSecurityScheme } from './runtime/contract-server.js';
import { createHttpServer } from './runtime/http-server.js';
import type { Mounts } from './runtime/misdirected.js';
import { BundleError } from './codegen/bundle.js';
import { GeneratorError } from './codegen/operations.js';
import { scaffoldHandlers } from './codegen/scaffold.js';
import { CONFIG_FILE, ConfigError, readProjectConfig } from './config.js';
import { generate, PROJECT_ROOT } from './generate.js';
import { generatedResponses } from './serve/generated-responses.js';
import { describeResource } from './serve/resource-pairing.js';
import { statefulMock, type HandlerInput, type MockResult, type RequestContext } from './serve/stateful.js';
import { readOperations } from './check/document.js';
import { curlCommand, firstRequest, type FirstRequest } from './serve/first-request.js';
import { parseFlags, reportUsageError, runAsMain, type Command } from './cli.js';
import { lintDocument, lintReport } from './lint/lint-document.js';

/** A handler as serve calls it: the stubs scaffolded for the document. */
type Handler = (input: unknown, context: unknown) => Promise<unknown>;

/** The runtime the served document's generated server.ts imports: this package's own. */
const RUNTIME_ENTRY = fileURLToPath(new URL('./runtime/index.js', import.meta.url));

export const USAGE = `Usage: contract-first serve [--input FILE | --api NAME] [--port N] [--handlers DIR] [--under-servers] [--stateful]

  --input FILE     the OpenAPI 3.1 document to serve, YAML or JSON
  --api NAME       a document of the project, by its name in redocly.yaml's apis: (with neither
                   --input nor --api: the first of them)
  --port N         the port (default 4010; 0 picks a free one)
  --handlers DIR   keep the stubs in DIR (missing ones are added, existing ones served as they are)
  --under-servers  serve the paths under the path of each of the document's servers (as a
                   generated server does), not as the document writes them
  --stateful       a mock with memory, until it stops: what a create (POST to a collection, PUT to a
                   new item) makes is held, reads and lists return it, PUT and PATCH change it,
                   DELETE removes it, an id never created gets 404; the resources are paired by
                   the document's links, a create's Location header, or the names of path parameters
  --help           show this text`;

/** What the generated server.ts gives the contract server. */
interface GeneratedServer {
  readonly routeList: readonly ContractRoute[];
  readonly securitySchemes: Readonly<Record<string, ContractSecurityScheme>>;
  readonly mountOperations: (
    router: IRouter,
    handlers: unknown,
    invoke: unknown,
    before: (route: ContractRoute) => readonly RequestHandler[],
  ) => void;
}

export interface ServeOptions {
  readonly input: string;
  readonly port: number;
  readonly handlersDir?: string;
  /** Mount the paths under the path of each of the document's servers, not as the document writes them. */
  readonly underServers?: boolean;
  /** Hold what creates make and serve it to the operations paired with them (serve/stateful.ts). */
  readonly stateful?: boolean;
  readonly log: (line: string) => void;
}

export interface Serving {
  readonly url: string;
  readonly operations: number;
  /** The URL of each base path the operations are mounted under (`url` itself for the paths as written). */
  readonly bases: readonly string[];
  /** A request to try first, as a curl command; undefined when the document has no operation. */
  readonly example: string | undefined;
  /** With `stateful`, the resources held, each with its create and the operations on it; undefined without. */
  readonly stateful: readonly string[] | undefined;
  close(): Promise<void>;
}

interface Prepared {
  readonly app: Express;
  readonly operations: number;
  /** The base paths the operations are mounted under. */
  readonly mountedUnder: readonly string[];
  /** The request to try first, under the first base. */
  readonly example: FirstRequest | undefined;
  readonly stateful: readonly string[] | undefined;
}

/** What a 404 says of a documented path asked for under the other base; undefined when the document's servers have no path. */
function mountsOf(serverBases: readonly string[], underServers: boolean): Mounts | undefined {
  if (serverBases.every((base) => base === '')) return undefined;
  const under = serverBases.filter((base) => base !== '').join(' and ');
  return underServers
    ? {
        mountedUnder: serverBases,
        serverBases,
        note: `this server mounts the paths under the path of the document's servers (serve without --under-servers mounts them as the document writes them)`,
      }
    : {
        mountedUnder: [''],
        serverBases,
        note: `this server mounts the paths as the document writes them (serve --under-servers mounts them under ${under})`,
      };
}

/** Whether a stub's response is one a handler returns: a status, and maybe a body, a media type, headers. */
const isMockResult = (value: unknown): value is MockResult =>
  typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'number';

/** Generates and scaffolds `input` into `work`, and builds the contract server of it. */
async function prepare(options: ServeOptions, work: string): Promise<Prepared> {
  // The generated TypeScript is loaded as ES modules, as the project's own is.
  await writeFile(path.join(work, 'package.json'), '{ "type": "module" }\n');
  const out = path.join(work, 'out');
  const handlersDir = options.handlersDir ?? path.join(work, 'handlers');
  const underServers = options.underServers === true;
  // The output imports the runtime this server is built from.
  const generation = await generate(options.input, out, process.cwd(), {
    runtime: RUNTIME_ENTRY,
    pathsAsWritten: !underServers,
  });
  for (const warning of generation.warnings) options.log(`warning: ${warning.pointer}: ${warning.message}`);
  await mkdir(out, { recursive: true });
  for (const file of generation.files) await writeFile(path.resolve(file.path), file.content);
  await scaffoldHandlers(generation, handlersDir, out);

  const server = (await import(pathToFileURL(path.join(out, 'server.ts')).href)) as GeneratedServer;
  const { handlers: stubs } = (await import(pathToFileURL(path.join(handlersDir, 'index.ts')).href)) as {
    handlers: Record<string, Handler>;
  };
  // A stub that responds with 501 (the document gives no example) responds with a value generated from
  // its schema instead.
  const generated = generatedResponses(generation.document, generation.model.operations);
  const mocks = Object.fromEntries(
    Object.entries(stubs).map(([key, stub]) => [
      key,
      async (input: unknown, context: unknown) => {
        try {
          return await stub(input, context);
        } catch (error) {
          const response = (error as { status?: unknown }).status === 501 ? generated.get(key) : undefined;
          if (response === undefined) throw error;
          return response;
        }
      },
    ]),
  );
  // With --stateful, the operations on a resource respond from what is held, on the stubs' responses.
  const keys = new Map(
    generation.model.operations.map((operation) => [
      `${operation.method.toUpperCase()} ${operation.path}`,
      operation.key,
    ]),
  );
  const stateful =
    options.stateful === true
      ? statefulMock(generation.document, readOperations(generation.document).operations, async (operation, input) => {
          const mock = mocks[keys.get(`${operation.method} ${operation.path}`) ?? ''];
          try {
            const result = mock === undefined ? undefined : await mock(input, undefined);
            return isMockResult(result) ? result : undefined;
          } catch {
            return undefined;
          }
        })
      : undefined;
  const handlers = Object.fromEntries(
    generation.model.operations.flatMap((operation) => {
      const held = stateful?.handlerOf(operation.method, operation.path);
      const handler = held ?? mocks[operation.key];
      return handler === undefined
        ? []
        : [[operation.key, (input: unknown, context: unknown) => handler(input as HandlerInput, context)]];
    }),
  );
  const { serverBases } = generation.model;
  const mounts = mountsOf(serverBases, underServers);
  const app = createContractApp({
    apiSpec: path.join(out, 'openapi.json'),
    routeList: server.routeList,
    securitySchemes: server.securitySchemes,
    mountOperations: server.mountOperations as never,
    handlers,
    context: (req): RequestContext => ({ requestPath: req.path }),
    validateResponses: true,
    log: options.log,
    ...(mounts === undefined ? {} : { mounts }),
  });
  return {
    app,
    operations: server.routeList.length,
    mountedUnder: underServers ? serverBases : [''],
    example: firstRequest(generation),
    stateful: stateful?.resources.map(describeResource),
  };
}

/** Generates, scaffolds and serves `input`; resolves once the server listens. */
export async function serve(options: ServeOptions): Promise<Serving> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'contract-server-'));
  let listening: Server;
  let prepared: Prepared;
  try {
    prepared = await prepare(options, work);
    const { app } = prepared;
    listening = await new Promise<Server>((resolve, reject) => {
      const http = createHttpServer(app);
      http.once('error', reject);
      http.listen(options.port, '127.0.0.1', () => resolve(http));
    });
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  const address = listening.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const url = `http://127.0.0.1:${port}`;
  const { example, mountedUnder } = prepared;
  return {
    url,
    operations: prepared.operations,
    bases: mountedUnder.map((base) => `${url}${base}`),
    example: example === undefined ? undefined : curlCommand(`${url}${mountedUnder[0] ?? ''}`, example),
    stateful: prepared.stateful,
    async close() {
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** What serve prints once it listens: where, the resources it keeps (with --stateful), and a request to try. */
export function servingLines(input: string, serving: Serving): string[] {
  const lines = [`serving ${input} (${serving.operations} operations) at ${serving.bases.join(' and ')}`];
  if (serving.stateful !== undefined)
    lines.push(
      `  stateful: ${serving.stateful.length === 0 ? 'no resources (no create is paired with a read, change or delete)' : serving.stateful.join('; ')}`,
    );
  if (serving.example !== undefined) lines.push(`  try: ${serving.example}`);
  return [...lines, '  Ctrl-C stops'];
}

export async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    {
      input: { type: 'string' },
      api: { type: 'string' },
      port: { type: 'string' },
      handlers: { type: 'string' },
      'under-servers': { type: 'boolean' },
      stateful: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (typeof values === 'number') return values;
  const port = Number(values.port ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || (values.input !== undefined && values.api !== undefined)) {
    return reportUsageError(
      values.input !== undefined && values.api !== undefined
        ? '--input and --api name two documents: give one'
        : '--port must be a whole number from 0 to 65535',
      USAGE,
    );
  }
  // Paths on the command line are read from where it was typed (npm runs scripts at the root).
  const here = process.env['INIT_CWD'] ?? process.cwd();
  if (values.input === undefined) {
    // A document of the project: the one --api names, or the first of redocly.yaml's apis:.
    try {
      const config = readProjectConfig(PROJECT_ROOT);
      const api =
        values.api === undefined ? config.apis[0] : config.apis.find((candidate) => candidate.name === values.api);
      if (api === undefined) {
        return reportUsageError(
          `${CONFIG_FILE} has no API named ${values.api ?? ''}: its apis are ${config.apis.map((candidate) => candidate.name).join(', ')}`,
          USAGE,
        );
      }
      values.input = path.relative(here, api.root) || api.root;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return reportUsageError(`${error.message}; or name a document with --input FILE`, USAGE);
    }
  }
  process.chdir(here);
  // The toolkit's lint rules, printed before the server's address; they stop nothing.
  const linting = lintDocument(values.input, here).catch((error: unknown) => error);
  try {
    const serving = await serve({
      input: path.resolve(values.input),
      port,
      ...(values.handlers === undefined ? {} : { handlersDir: path.resolve(values.handlers) }),
      underServers: values['under-servers'] === true,
      stateful: values.stateful === true,
      log: (line) => console.error(line),
    });
    for (const line of lintReport(values.input, await linting)) console.error(line);
    for (const line of servingLines(values.input, serving)) console.log(line);
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

export const COMMAND: Command = { run: main };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
