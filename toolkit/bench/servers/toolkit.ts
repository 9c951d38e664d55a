/**
 * A project's server as `contract-first new` makes it: the generated route table of the document in
 * BENCH_GENERATED, the contract server of contract-first/runtime with its verifier of the bearer
 * token, served by createHttpServer; every response checked against the document unless NODE_ENV is
 * `production`. Handlers return the fixed items of any resource the document has.
 */
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  createContractApp,
  createHttpServer,
  type ContractRoute,
  type ContractServerOptions,
} from 'contract-first/runtime';
import { announce, created, ITEMS, page, PORT, TOKEN, type NewItem } from './items.js';

interface Input {
  readonly query: { readonly limit?: number };
  readonly body: NewItem;
  readonly path: Readonly<Record<string, string>>;
}
type Handler = (input: Input) => Promise<{ status: number; body?: unknown }>;

const folder = process.env['BENCH_GENERATED'];
if (folder === undefined) throw new Error('BENCH_GENERATED must name the generated folder');
const generated = (await import(pathToFileURL(path.join(folder, 'server.ts')).href)) as {
  routeList: readonly (ContractRoute & { operationId: string })[];
  securitySchemes: ContractServerOptions<ContractRoute, unknown>['securitySchemes'];
  mountOperations: ContractServerOptions<ContractRoute, unknown>['mountOperations'];
};

/** A handler by what the operation does: list, create, read or delete. */
function handlerOf(operationId: string): Handler {
  if (operationId.startsWith('list')) return async ({ query }) => ({ status: 200, body: page(query.limit ?? 20) });
  if (operationId.startsWith('create')) return async ({ body }) => ({ status: 201, body: created(body) });
  if (operationId.startsWith('get'))
    return async ({ path: params }) => ({ status: 200, body: { ...ITEMS[0], id: Object.values(params)[0] } });
  return async () => ({ status: 204 });
}

const app = createContractApp({
  apiSpec: path.join(folder, 'openapi.json'),
  routeList: generated.routeList,
  securitySchemes: generated.securitySchemes,
  mountOperations: generated.mountOperations,
  handlers: Object.fromEntries(generated.routeList.map((route) => [route.operationId, handlerOf(route.operationId)])),
  verifiers: { bearer: (credential: { token: string }) => credential.token === TOKEN },
  validateResponses: process.env['NODE_ENV'] !== 'production',
  log: (line) => process.stderr.write(`${line}\n`),
});
const server = createHttpServer(app);
await new Promise<void>((resolve) => server.listen(PORT, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
// As a project's server/main.ts: one request through the validator before the start is announced.
const warmUp = await fetch(`http://127.0.0.1:${port}/.well-known/warm-up`, { headers: { Connection: 'close' } });
await warmUp.arrayBuffer();
announce(port);
// A profile (--cpu-prof) is written when the process exits, which SIGTERM's default does not do.
process.once('SIGTERM', () => server.close(() => process.exit(0)));
