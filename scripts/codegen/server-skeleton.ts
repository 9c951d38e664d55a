import type { DocumentModel, OperationInfo, WebhookInfo } from './operations.js';

/**
 * Renders the typed server skeleton of a document: each operation's handler type from
 * openapi-typescript's output, the route table, the order and paths Express serves them in, the
 * function that mounts them, and for webhooks the types of a request this server sends and a
 * function to send one. The output imports only Express's types and the generated types.
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

function mount(op: OperationInfo): string {
  const id = q(op.key);
  const paths = op.expressPaths.length === 1 ? q(op.expressPaths[0] ?? '') : list(op.expressPaths);
  const headers =
    op.parameters.header.length === 0
      ? '{}'
      : `{ ${op.parameters.header.map((name) => `${q(name)}: req.headers[${q(name.toLowerCase())}]`).join(', ')} }`;
  return `  router.${op.method}(${paths}, ...before(routes[${id}]), (req, res, next) => {
    const input = {
      path: ${op.parameters.path.length > 0 ? 'req.params' : '{}'},
      query: ${op.parameters.query.length > 0 ? 'req.query' : '{}'},
      headers: ${headers},
      cookies: ${op.parameters.cookie.length > 0 ? 'cookiesOf(req)' : '{}'},
      body: ${op.requestContentTypes.length > 0 ? 'req.body' : 'undefined'},
    } as unknown as OperationInput<${id}>;
    invoke(routes[${id}], req, res, (ctx) => handlers[${id}](input, ctx)).catch(next);
  });`;
}

function webhookEntry(hook: WebhookInfo): string {
  return `  ${q(hook.name)}: { name: ${q(hook.name)}, method: ${q(hook.method)}, requestContentTypes: ${list(hook.requestContentTypes)} },`;
}

export function renderServerSkeleton(model: DocumentModel, header: string): string {
  const { operations, mountOrder, webhooks, securitySchemes } = model;
  const typeImports = [...(operations.length > 0 ? ['paths'] : []), ...(webhooks.length > 0 ? ['webhooks'] : [])];
  const usesCookies = operations.some((op) => op.parameters.cookie.length > 0);

  return `${header}
import type { IRouter, Request, RequestHandler, Response } from 'express';
${typeImports.length > 0 ? `import type { ${typeImports.join(', ')} } from './openapi-types.js';\n` : ''}
/** Every operation of the document, keyed by its operationId (or the one derived from its method and path). */
export interface Operations {
${operations.map((op) => `  ${q(op.key)}: ${op.typeRef};`).join('\n')}
}

/** The operationIds of the document. */
export type OperationId = keyof Operations;

type Defined<T> = Exclude<T, undefined>;
type Empty = Record<string, never>;
type ParametersOf<Op, In extends 'path' | 'query' | 'header' | 'cookie'> = Op extends { parameters: infer P }
  ? [Defined<P[In & keyof P]>] extends [never]
    ? Empty
    : Defined<P[In & keyof P]>
  : Empty;
type RequestBodyOf<Op> = Op extends { requestBody?: infer B }
  ? [Defined<B>] extends [never]
    ? undefined
    : (Defined<B> extends { content: infer C } ? C[keyof C] : never) | (undefined extends B ? undefined : never)
  : undefined;
type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type ToNumber<T> = T extends \`\${infer N extends number}\` ? N : never;
/** A response key as the status codes it stands for: \`404\`, \`"4XX"\` (400 to 499), \`"default"\` (any). */
type StatusOf<S> = S extends number
  ? S
  : S extends \`\${infer D extends '1' | '2' | '3' | '4' | '5'}XX\`
    ? ToNumber<\`\${D}\${Digit}\${Digit}\`>
    : S extends 'default'
      ? number
      : ToNumber<S>;
type NoContent<S> = { readonly status: S; readonly body?: undefined; readonly headers?: ResponseHeaders };
/** One result per media type the response declares; \`contentType\` defaults to the first one. */
type ContentResults<S, R> = R extends { content: infer C }
  ? [keyof C] extends [never]
    ? NoContent<S>
    : { [M in keyof C]: { readonly status: S; readonly contentType?: M; readonly body: C[M]; readonly headers?: ResponseHeaders } }[keyof C]
  : NoContent<S>;
type ResponsesOf<Op> = Op extends { responses: infer R } ? R : Empty;
/** Exactly one of the responses an operation declares. */
type ResultOf<Op> = [ResponsesOf<Op>] extends [never]
  ? never
  : { [S in keyof ResponsesOf<Op>]: ContentResults<StatusOf<S>, ResponsesOf<Op>[S]> }[keyof ResponsesOf<Op>];

/** Response headers a handler sets besides those the HTTP layer adds. */
export type ResponseHeaders = Readonly<Record<string, string>>;

/** What a handler receives: the validated path parameters, query, declared headers and cookies, and the body. */
export interface OperationInput<K extends OperationId> {
  readonly path: ParametersOf<Operations[K], 'path'>;
  readonly query: ParametersOf<Operations[K], 'query'>;
  readonly headers: ParametersOf<Operations[K], 'header'>;
  readonly cookies: ParametersOf<Operations[K], 'cookie'>;
  readonly body: RequestBodyOf<Operations[K]>;
}

/** What a handler returns: exactly one of the responses the document declares for the operation. */
export type OperationResult<K extends OperationId> = ResultOf<Operations[K]>;

/*
 * What the compiler says of an answer off the contract. A handler's answer is checked against
 * \`OperationAnswer<"getPet", "200 | 404">\`, and the compiler prints it so: the operation, and the
 * statuses it declares in order. An answer with a status from 100 to 599 that the operation does
 * not declare matches only \`UndeclaredStatus\`, so the message ends in \`Property
 * '[undeclaredStatus]' is missing in type '{ status: 201; … }' but required in type
 * 'UndeclaredStatus<"getPet answers one of 200 | 404", "getPet">'\`. No value has that type: its
 * key is a symbol this file does not export.
 */
type StatusCharacters = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'X'];
/*
 * The types below begin with a condition on their own parameters, so that the compiler works them
 * out once per set of statuses, when it meets an operation, and not once per operation.
 */
type Joined<A, B> = A extends '' ? B : B extends '' ? A : \`\${A & string} | \${B & string}\`;
/** \`Keys\`, which all start with \`Prefix\`, in order and joined: \`"200 | 204 | 2XX"\` (keys of up to three characters). */
type InOrder<Keys, Prefix extends string = '', Level extends readonly unknown[] = [], Next = StatusCharacters, Done = ''> = [Keys] extends [never]
  ? Done
  : Next extends readonly [infer C extends string, ...infer Rest]
    ? InOrder<Keys, Prefix, Level, Rest, Joined<Done, KeysFrom<Extract<Keys, \`\${Prefix}\${C}\${string}\`>, \`\${Prefix}\${C}\`, Level>>>
    : Done;
type KeysFrom<Keys, Prefix extends string, Level extends readonly unknown[]> = [Keys] extends [never]
  ? ''
  : Joined<Prefix extends Keys ? Prefix : '', Level['length'] extends 2 ? '' : InOrder<Exclude<Keys, Prefix>, Prefix, [...Level, Prefix]>>;
/** An operation's response keys as text: \`"200"\`, \`"4XX"\`, \`"default"\`. */
type StatusKeys<Op> = [ResponsesOf<Op>] extends [never] ? never : \`\${keyof ResponsesOf<Op> & (string | number)}\`;
/** The statuses an operation declares, in order, \`default\` last; \`""\` when it declares none. */
type DeclaredStatuses<Op> = [StatusKeys<Op>] extends [infer Keys]
  ? string extends Keys
    ? ''
    : Joined<InOrder<Exclude<Keys, 'default'>>, 'default' extends Keys ? 'default' : ''>
  : never;
declare const undeclaredStatus: unique symbol;
/** Every status from 100 to 599. */
type AnyStatus = StatusOf<'1XX' | '2XX' | '3XX' | '4XX' | '5XX'>;
/** The statuses from 100 to 599 not in \`Declared\`. */
type OtherThan<Declared> = [Declared] extends [infer D] ? (AnyStatus extends infer S ? (S extends D ? never : S) : never) : never;
/**
 * An answer with a status from 100 to 599 the operation does not declare (none where it declares
 * \`default\`); no value has this type.
 */
interface UndeclaredStatus<Message extends string, K extends OperationId> {
  readonly status: OtherThan<OperationResult<K>['status']>;
  readonly [undeclaredStatus]: Message;
}
/** What the compiler says of an operation's statuses: \`getPet answers one of 200 | 404\`. */
type AnswersOf<K extends OperationId, Declared extends string> = Declared extends ''
  ? \`\${K} declares no response: its handler can only throw\`
  : Declared extends \`\${string} | \${string}\`
    ? \`\${K} answers one of \${Declared}\`
    : \`\${K} answers only \${Declared}\`;
/**
 * What a handler may answer: one of the operation's declared responses. \`Declared\` lists their
 * statuses for the compiler's messages; \`UndeclaredStatus\` is there for the message alone.
 */
type OperationAnswer<K extends OperationId, Declared extends string> =
  | OperationResult<K>
  | UndeclaredStatus<AnswersOf<K, Declared>, K>;

/**
 * A handler: its answer is one of the responses the operation declares. One off the contract does not
 * compile, and the message names the operation and the statuses it declares.
 */
export type OperationHandler<K extends OperationId, Ctx> = (input: OperationInput<K>, ctx: Ctx) => Promise<OperationAnswer<K, DeclaredStatuses<Operations[K]>>>;

/** One handler per operation: a missing one, an undeclared status or a wrong body does not compile. */
export type Handlers<Ctx> = { readonly [K in OperationId]: OperationHandler<K, Ctx> };

/** The body of an operation's answer with status \`S\` in media type \`M\` (a scaffolded stub's example). */
export type AnswerBody<K extends OperationId, S extends number, M extends string> = OperationResult<K> extends infer R
  ? R extends { readonly status: infer T; readonly contentType?: infer C; readonly body?: infer B }
    ? S extends T
      ? M extends C
        ? B
        : never
      : never
    : never
  : never;

/** The document's example of an answer, as the type it is declared to be; response validation checks it when it is sent. */
export function documentExample<T>(value: unknown): T {
  return value as T;
}

/** Thrown by a scaffolded handler that is not written yet: the HTTP layer answers 501. */
export class NotImplementedError extends Error {
  readonly status = 501;
  constructor(readonly operationId: string) {
    super(\`\${operationId} is not implemented yet\`);
    this.name = 'NotImplementedError';
  }
}

/** One way to satisfy an operation's security: every scheme named, each with the scopes listed. \`{}\`: none needed. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface SecurityScheme {
  /** apiKey, http, mutualTLS, oauth2 or openIdConnect. */
  readonly type: string;
  /** For http: basic, bearer, … */
  readonly scheme?: string;
  /** For apiKey: where the key travels (query, header, cookie) and its name. */
  readonly in?: string;
  readonly name?: string;
  readonly bearerFormat?: string;
  readonly openIdConnectUrl?: string;
  /** For oauth2: the flows the document declares. */
  readonly flows?: readonly string[];
}

/** The security schemes of the document, by name. */
export const securitySchemes: Readonly<Record<string, SecurityScheme>> = ${json(securitySchemes)};

export interface RouteDefinition {
  readonly operationId: OperationId;
  readonly method: 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
  /** The path as the document writes it. */
  readonly path: string;
  /** Where Express serves the operation: the path under each base path of the document's servers. */
  readonly expressPaths: readonly string[];
  readonly tags: readonly string[];
  /**
   * The alternatives the HTTP layer enforces, any one of which must hold (\`[]\`: no security; an
   * alternative \`{}\`: security is optional).
   */
  readonly security: readonly SecurityRequirement[];
  /** The names of the operation's parameters, path-level ones included, by location. */
  readonly parameters: {
    readonly path: readonly string[];
    readonly query: readonly string[];
    readonly header: readonly string[];
    readonly cookie: readonly string[];
  };
  readonly requestContentTypes: readonly string[];
  readonly requestBodyRequired: boolean;
  /** The operation's \`x-\` fields, for the HTTP layer to read its own conventions from. */
  readonly extensions: Readonly<Record<string, unknown>>;
}

/** The route table, in document order. */
export const routes: { readonly [K in OperationId]: RouteDefinition & { readonly operationId: K } } = {
${operations.map(routeEntry).join('\n')}
};

/** The routes in the order Express tries them: a fixed segment before a template in the same place. */
export const routeList: readonly RouteDefinition[] = [${mountOrder.map((op) => `routes[${q(op.key)}]`).join(', ')}];

export interface AnyOperationResult {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly headers?: ResponseHeaders;
}

/**
 * Runs one operation for a request: builds the handler's context, calls \`run\`, and sends the result.
 * The HTTP layer supplies it, so transactions, idempotency and response writing live in one place.
 */
export type Invoke<Ctx> = (
  route: RouteDefinition,
  req: Request,
  res: Response,
  run: (ctx: Ctx) => Promise<AnyOperationResult>,
) => Promise<void>;
${usesCookies ? `
/** The request's cookies, as a cookie parser mounted before the operations left them. */
const cookiesOf = (req: Request): unknown => (req as { cookies?: unknown }).cookies ?? {};
` : ''}
/**
 * Mounts every operation of the document on \`router\` (an Express app or router), in \`routeList\`'s
 * order, each behind the middleware \`before\` gives for its route (authentication, validation: the
 * HTTP layer decides); the handler runs last.
 */
export function mountOperations<Ctx>(
  router: IRouter,
  handlers: Handlers<Ctx>,
  invoke: Invoke<Ctx>,
  before: (route: RouteDefinition) => readonly RequestHandler[] = () => [],
): void {
${mountOrder.length === 0 ? '  void router;\n  void handlers;\n  void invoke;\n  void before;' : mountOrder.map(mount).join('\n')}
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
export interface WebhookRequest<W extends WebhookName> {
  readonly headers: ParametersOf<Webhooks[W], 'header'>;
  readonly body: RequestBodyOf<Webhooks[W]>;
}

/** One of the answers the document expects from a subscriber. */
export type WebhookResponse<W extends WebhookName> = ResultOf<Webhooks[W]>;

export interface WebhookDefinition {
  readonly name: string;
  readonly method: RouteDefinition['method'];
  readonly requestContentTypes: readonly string[];
}

export const webhookTable: { readonly [W in WebhookName]: WebhookDefinition } = {
${hooks.map(webhookEntry).join('\n')}
};

/** Sends a webhook request to a subscriber's URL and returns the subscriber's answer. */
export type SendWebhook = <W extends WebhookName>(url: string, name: W, request: WebhookRequest<W>) => Promise<WebhookResponse<W>>;

/**
 * Sends a webhook with \`fetch\`: the body as JSON (or as text when the webhook takes no JSON), the
 * declared headers as given. The answer's body is parsed as JSON when it says it is JSON.
 */
export const sendWebhook: SendWebhook = async (url, name, request) => {
  const hook: WebhookDefinition = webhookTable[name];
  const contentType = hook.requestContentTypes[0];
  const isJson = contentType === undefined || /[/+]json(;|$)/i.test(contentType);
  const headers: Record<string, string> = { ...(contentType === undefined ? {} : { 'Content-Type': contentType }) };
  for (const [field, value] of Object.entries(request.headers as Record<string, unknown>)) headers[field] = String(value);
  const response = await fetch(url, {
    method: hook.method.toUpperCase(),
    headers,
    ...(request.body === undefined ? {} : { body: isJson ? JSON.stringify(request.body) : String(request.body) }),
  });
  const text = await response.text();
  const answerType = response.headers.get('content-type') ?? undefined;
  const body = text === '' ? undefined : answerType !== undefined && /[/+]json(;|$)/i.test(answerType) ? (JSON.parse(text) as unknown) : text;
  return { status: response.status, body, ...(answerType === undefined ? {} : { contentType: answerType }) } as unknown as WebhookResponse<typeof name>;
};
`;
}
