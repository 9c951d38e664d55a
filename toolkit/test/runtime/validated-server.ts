import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { createOpenApiValidation, validationFailureOf, type ValidationFailure } from '../../src/runtime/index.js';
import { sendResult } from '../../src/runtime/index.js';

/**
 * An Express server around a document of a test's own, validated by the toolkit as the service
 * is: routing on the app, each operation's checks on its route after the JSON parser. Each route
 * responds with what the test sets in `response` (through the toolkit's sendResult), and records what its
 * handler received.
 */
export interface ResponseToSend {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Received {
  readonly query: unknown;
  readonly params: unknown;
  readonly headers: Request['headers'];
  readonly body: unknown;
}

export interface ValidatedServer {
  readonly baseUrl: string;
  /** What the next request's handler responds with. */
  response: ResponseToSend;
  /** What the last handler received; undefined when no handler ran. */
  received: Received | undefined;
  /** The validation failures the error handler turned into error responses, last one last. */
  readonly failures: ValidationFailure[];
  close(): Promise<void>;
}

export interface ValidatedServerOptions {
  readonly validateResponses?: boolean;
  readonly ignorePaths?: RegExp;
  /** Express routes to mount, as `[method, expressPath]`. */
  readonly routes: ReadonlyArray<readonly ['get' | 'post' | 'put' | 'patch' | 'delete', string]>;
}

export async function startValidatedServer(
  document: object,
  options: ValidatedServerOptions,
): Promise<ValidatedServer> {
  const dir = mkdtempSync(join(tmpdir(), 'validated-server-'));
  const apiSpec = join(dir, 'openapi.json');
  writeFileSync(apiSpec, JSON.stringify(document));
  const validation = createOpenApiValidation({
    apiSpec,
    validateResponses: options.validateResponses ?? true,
    ...(options.ignorePaths === undefined ? {} : { ignorePaths: options.ignorePaths }),
  });

  const state: { response: ResponseToSend; received: Received | undefined } = {
    response: { status: 200 },
    received: undefined,
  };
  const failures: ValidationFailure[] = [];
  const app = express();
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');
  app.use(...validation.routing);
  const handler: RequestHandler = (req: Request, res: Response) => {
    state.received = { query: req.query, params: req.params, headers: req.headers, body: req.body as unknown };
    sendResult(res, state.response);
  };
  const parsers = [express.json({ type: ['application/json', 'application/merge-patch+json'] })];
  for (const [method, path] of options.routes) app[method](path, ...parsers, ...validation.operation, handler);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const errors: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    const failure = validationFailureOf(error);
    if (failure === undefined) {
      res.status(500).json({ message: String(error) });
      return;
    }
    failures.push(failure);
    res.set(failure.headers);
    res
      .status(failure.status)
      .json({ message: failure.message, ...(failure.field === undefined ? {} : { field: failure.field }) });
  };
  app.use(errors, errors);

  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get response() {
      return state.response;
    },
    set response(value: ResponseToSend) {
      state.response = value;
    },
    get received() {
      return state.received;
    },
    set received(value: Received | undefined) {
      state.received = value;
    },
    failures,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
