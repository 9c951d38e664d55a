import type { DocumentModel, OperationInfo, WebhookInfo } from './operations.js';

/**
 * Renders the typed server skeleton of a document: its operations and webhooks as
 * openapi-typescript's output types them, bound to the handler types of the toolkit's runtime
 * (runtime/handler-types.ts), its route table, the order and paths Express serves them in, and
 * the function that mounts them (runtime/routes.ts). `runtime` is the module the output imports
 * the runtime from (`contract-first/runtime`).
 */

const q = (value: string): string => JSON.stringify(value);
const list = (values: readonly string[]): string => `[${values.map(q).join(', ')}]`;
const json = (value: unknown): string => JSON.stringify(value);

function routeEntry(op: OperationInfo): string {
  return `  ${q(op.key)}: {
    operationId: ${q(op.key)},
    method: ${q(op.method)},
    path: ${q(op.path)},
    expressPaths: ${list(op.expressPaths)},
    tags: ${list(op.tags)},
    security: ${json(op.security)},
    parameters: { path: ${list(op.parameters.path)}, query: ${list(op.parameters.query)}, header: ${list(op.parameters.header)}, cookie: ${list(op.parameters.cookie)} },
    requestContentTypes: ${list(op.requestContentTypes)},
    requestBodyRequired: ${op.requestBodyRequired},
    extensions: ${json(op.extensions)},
  },`;
}

function webhookEntry(hook: WebhookInfo): string {
  return `  ${q(hook.name)}: { name: ${q(hook.name)}, method: ${q(hook.method)}, requestContentTypes: ${list(hook.requestContentTypes)} },`;
}

export function renderServerSkeleton(model: DocumentModel, header: string, runtime: string): string {
  const { operations, mountOrder, webhooks, securitySchemes, serverBases } = model;
  const typeImports = [...(operations.length > 0 ? ['paths'] : []), ...(webhooks.length > 0 ? ['webhooks'] : [])];
  const from = q(runtime);

  return `${header}
import type { IRouter, RequestHandler } from 'express';
${typeImports.length > 0 ? `import type { ${typeImports.join(', ')} } from './openapi-types.js';\n` : ''}import type { ResponseBodyOf, DeclaredStatusesMessage, DeclaredStatuses, OperationInputOf, OperationResultOf, UndeclaredStatus } from ${from};
import { mountOperations as mountRoutes, type Invoke as InvokeRoute, type RouteDefinition as Route, type SecurityScheme } from ${from};
${webhooks.length > 0 ? `import { sendWebhook as sendTo, type WebhookDefinition, type WebhookRequestOf } from ${from};\n` : ''}
export { documentExample, NotImplementedError, type AnyOperationResult, type ResponseHeaders } from ${from};
export type { SecurityRequirement, SecurityScheme } from ${from};

/** Every operation of the document, keyed by its operationId (or the one derived from its method and path). */
export interface Operations {
${operations.map((op) => `  ${q(op.key)}: ${op.typeRef};`).join('\n')}
}

/** The operationIds of the document. */
export type OperationId = keyof Operations;

/** What a handler receives: the validated path parameters, query, declared headers and cookies, and the body. */
export type OperationInput<K extends OperationId> = OperationInputOf<Operations[K]>;

/** What a handler returns: exactly one of the responses the document declares for the operation. */
export type OperationResult<K extends OperationId> = OperationResultOf<Operations[K]>;

/**
 * What a handler may respond with: one of the operation's declared responses. \`Declared\` lists their
 * statuses for the compiler's messages (\`OperationResponse<"getPet", "200 | 404">\`);
 * \`UndeclaredStatus\` is there for the message alone.
 */
type OperationResponse<K extends OperationId, Declared extends string> = OperationResult<K> | UndeclaredStatus<DeclaredStatusesMessage<K, Declared>>;

/**
 * A handler: its response is one of the responses the operation declares. One off the contract does not
 * compile, and the message names the operation and the statuses it declares.
 */
export type OperationHandler<K extends OperationId, Ctx> = (input: OperationInput<K>, ctx: Ctx) => Promise<OperationResponse<K, DeclaredStatuses<Operations[K]>>>;

/** One handler per operation: a missing one, an undeclared status or a wrong body does not compile. */
export type Handlers<Ctx> = { readonly [K in OperationId]: OperationHandler<K, Ctx> };

/** The body of an operation's response with status \`S\` in media type \`M\` (a scaffolded stub's example). */
export type ResponseBody<K extends OperationId, S extends number, M extends string> = ResponseBodyOf<Operations[K], S, M>;

/** The security schemes of the document, by name (each as written, so that a verifier of it is typed by what it is). */
export const securitySchemes = ${json(securitySchemes)} as const satisfies Readonly<Record<string, SecurityScheme>>;

/** What the route table says of an operation. */
export type RouteDefinition = Route<OperationId>;

/** The route table, in document order. */
export const routes: { readonly [K in OperationId]: RouteDefinition & { readonly operationId: K } } = {
${operations.map(routeEntry).join('\n')}
};

/** The path of each of the document's servers (\`''\` for none), under which the operations are mounted. */
export const serverBases: readonly string[] = ${list(serverBases)};

/** The routes in the order Express tries them: a fixed segment before a template in the same place. */
export const routeList: readonly RouteDefinition[] = [${mountOrder.map((op) => `routes[${q(op.key)}]`).join(', ')}];

/** Runs one operation for a request (the HTTP layer's): builds the handler's context, calls \`run\`, sends the result. */
export type Invoke<Ctx> = InvokeRoute<Ctx, RouteDefinition>;

/**
 * Mounts every operation of the document on \`router\` (an Express app or router), in \`routeList\`'s
 * order, each behind the middleware \`before\` gives for its route (authentication, validation: the
 * HTTP layer decides); the handler runs last.
 */
export function mountOperations<Ctx>(router: IRouter, handlers: Handlers<Ctx>, invoke: Invoke<Ctx>, before?: (route: RouteDefinition) => readonly RequestHandler[]): void {
  mountRoutes(router, routeList, handlers, invoke, before);
}
${webhooks.length === 0 ? '' : renderWebhooks(webhooks)}`;
}

function renderWebhooks(hooks: readonly WebhookInfo[]): string {
  return `
/** Every webhook of the document: a request this server sends to its subscribers, by name. */
export interface Webhooks {
${hooks.map((hook) => `  ${q(hook.name)}: ${hook.typeRef};`).join('\n')}
}

export type WebhookName = keyof Webhooks;

/** What a webhook request carries: its declared headers and its body. */
export type WebhookRequest<W extends WebhookName> = WebhookRequestOf<Webhooks[W]>;

/** One of the responses the document expects from a subscriber. */
export type WebhookResponse<W extends WebhookName> = OperationResultOf<Webhooks[W]>;

export type { WebhookDefinition };

export const webhookTable: { readonly [W in WebhookName]: WebhookDefinition } = {
${hooks.map(webhookEntry).join('\n')}
};

/** Sends a webhook request to a subscriber's URL and returns the subscriber's response. */
export type SendWebhook = <W extends WebhookName>(url: string, name: W, request: WebhookRequest<W>) => Promise<WebhookResponse<W>>;

/** Sends a webhook with \`fetch\`: the body as JSON (or as text when the webhook takes no JSON), the declared headers as given. */
export const sendWebhook: SendWebhook = (url, name, request) => sendTo<Webhooks[typeof name]>(webhookTable[name], url, request);
`;
}
