/**
 * The types of a handler, for any document: what it receives and what it may respond with, worked out
 * from an operation's type as openapi-typescript writes it (`paths["/pets/{id}"]["get"]`). Each
 * generated server.ts binds them to its document's `Operations` (OperationInput, OperationResult,
 * OperationHandler, Handlers); this file holds the one copy of the machinery.
 */

type Defined<T> = Exclude<T, undefined>;
type Empty = Record<string, never>;

/** An operation's parameters in one place, as one object; `{}` when it has none there. */
export type ParametersOf<Op, In extends 'path' | 'query' | 'header' | 'cookie'> = Op extends { parameters: infer P }
  ? [Defined<P[In & keyof P]>] extends [never]
    ? Empty
    : Defined<P[In & keyof P]>
  : Empty;

/** An operation's request body, one of its media types' schemas; `undefined` too when it is optional. */
export type RequestBodyOf<Op> = Op extends { requestBody?: infer B }
  ? [Defined<B>] extends [never]
    ? undefined
    : (Defined<B> extends { content: infer C } ? C[keyof C] : never) | (undefined extends B ? undefined : never)
  : undefined;

type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type ToNumber<T> = T extends `${infer N extends number}` ? N : never;
/** A response key as the status codes it stands for: `404`, `"4XX"` (400 to 499), `"default"` (any). */
type StatusOf<S> = S extends number
  ? S
  : S extends `${infer D extends '1' | '2' | '3' | '4' | '5'}XX`
    ? ToNumber<`${D}${Digit}${Digit}`>
    : S extends 'default'
      ? number
      : ToNumber<S>;

/** Response headers a handler sets besides those the HTTP layer adds. */
export type ResponseHeaders = Readonly<Record<string, string>>;

type NoContent<S> = { readonly status: S; readonly body?: undefined; readonly headers?: ResponseHeaders };
/** One result per media type the response declares; `contentType` defaults to the first one. */
type ContentResults<S, R> = R extends { content: infer C }
  ? [keyof C] extends [never]
    ? NoContent<S>
    : {
        [M in keyof C]: {
          readonly status: S;
          readonly contentType?: M;
          readonly body: C[M];
          readonly headers?: ResponseHeaders;
        };
      }[keyof C]
  : NoContent<S>;
type ResponsesOf<Op> = Op extends { responses: infer R } ? R : Empty;

/** Exactly one of the responses an operation declares. */
export type OperationResultOf<Op> = [ResponsesOf<Op>] extends [never]
  ? never
  : { [S in keyof ResponsesOf<Op>]: ContentResults<StatusOf<S>, ResponsesOf<Op>[S]> }[keyof ResponsesOf<Op>];

/** What a handler receives: the validated path parameters, query, declared headers and cookies, and the body. */
export interface OperationInputOf<Op> {
  readonly path: ParametersOf<Op, 'path'>;
  readonly query: ParametersOf<Op, 'query'>;
  readonly headers: ParametersOf<Op, 'header'>;
  readonly cookies: ParametersOf<Op, 'cookie'>;
  readonly body: RequestBodyOf<Op>;
}

/*
 * What the compiler says of a response off the contract. A generated server.ts checks a handler's
 * response against `OperationResponse<"getPet", "200 | 404">`, a union of the operation's results and
 * `UndeclaredStatus<"getPet responds with one of 200 | 404">`, and the compiler prints both so: the
 * operation, and the statuses it declares in order. A response with a status from 100 to 599 that
 * the operation does not declare matches only `UndeclaredStatus`, so the message ends in `Property
 * '[undeclaredStatus]' is missing in type '{ status: 201; … }' but required in type
 * 'UndeclaredStatus<"getPet responds with one of 200 | 404">'`. No value has that type: its key is a
 * symbol this file does not export.
 */
type StatusCharacters = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'X'];
/*
 * The types below begin with a condition on their own parameters, so that the compiler works them
 * out once per set of statuses, when it meets an operation, and not once per operation.
 */
type Joined<A, B> = A extends '' ? B : B extends '' ? A : `${A & string} | ${B & string}`;
/** `Keys`, which all start with `Prefix`, in order and joined: `"200 | 204 | 2XX"` (keys of up to three characters). */
type InOrder<
  Keys,
  Prefix extends string = '',
  Level extends readonly unknown[] = [],
  Next = StatusCharacters,
  Done = '',
> = [Keys] extends [never]
  ? Done
  : Next extends readonly [infer C extends string, ...infer Rest]
    ? InOrder<
        Keys,
        Prefix,
        Level,
        Rest,
        Joined<Done, KeysFrom<Extract<Keys, `${Prefix}${C}${string}`>, `${Prefix}${C}`, Level>>
      >
    : Done;
type KeysFrom<Keys, Prefix extends string, Level extends readonly unknown[]> = [Keys] extends [never]
  ? ''
  : Joined<
      Prefix extends Keys ? Prefix : '',
      Level['length'] extends 2 ? '' : InOrder<Exclude<Keys, Prefix>, Prefix, [...Level, Prefix]>
    >;
/** An operation's response keys as text: `"200"`, `"4XX"`, `"default"`. */
type StatusKeys<Op> = [ResponsesOf<Op>] extends [never] ? never : `${keyof ResponsesOf<Op> & (string | number)}`;
/** The statuses an operation declares, in order, `default` last; `""` when it declares none. */
export type DeclaredStatuses<Op> = [StatusKeys<Op>] extends [infer Keys]
  ? string extends Keys
    ? ''
    : Joined<InOrder<Exclude<Keys, 'default'>>, 'default' extends Keys ? 'default' : ''>
  : never;

/** What the compiler says of an operation's statuses: `getPet responds with one of 200 | 404`. */
export type DeclaredStatusesMessage<K extends string, Declared extends string> = Declared extends ''
  ? `${K} declares no response: its handler can only throw`
  : Declared extends `${string} | ${string}`
    ? `${K} responds with one of ${Declared}`
    : `${K} responds only with ${Declared}`;

/** The response keys a message of DeclaredStatusesMessage lists (`"200" | "404"`), read back from its text. */
type KeysListed<Message> = Message extends `${string} responds with one of ${infer List}`
  ? Split<List>
  : Message extends `${string} responds only with ${infer List}`
    ? Split<List>
    : never;
type Split<List> = List extends `${infer Key} | ${infer Rest}` ? Key | Split<Rest> : List;

declare const undeclaredStatus: unique symbol;
/** Every status from 100 to 599. */
type AnyStatus = StatusOf<'1XX' | '2XX' | '3XX' | '4XX' | '5XX'>;
/** The statuses from 100 to 599 not in `Declared`. */
type OtherThan<Declared> = [Declared] extends [infer D]
  ? AnyStatus extends infer S
    ? S extends D
      ? never
      : S
    : never
  : never;
/**
 * A response with a status from 100 to 599 that the operation does not declare (none where it
 * declares `default`): the statuses are those `Message` lists. No value has this type.
 */
export interface UndeclaredStatus<Message extends string> {
  readonly status: OtherThan<StatusOf<KeysListed<Message>>>;
  readonly [undeclaredStatus]: Message;
}

/** The body of an operation's response with status `S` in media type `M` (a scaffolded stub's example). */
export type ResponseBodyOf<Op, S extends number, M extends string> =
  OperationResultOf<Op> extends infer R
    ? R extends { readonly status: infer T; readonly contentType?: infer C; readonly body?: infer B }
      ? S extends T
        ? M extends C
          ? B
          : never
        : never
      : never
    : never;

/** What the HTTP layer sends, whichever the operation. */
export interface AnyOperationResult {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly headers?: ResponseHeaders;
}

/** The document's example of a response, as the type it is declared to be; response validation checks it when it is sent. */
export function documentExample<T>(value: unknown): T {
  return value as T;
}

/** Thrown by a scaffolded handler that is not written yet: the HTTP layer responds with 501. */
export class NotImplementedError extends Error {
  readonly status = 501;
  constructor(readonly operationId: string) {
    super(`${operationId} is not implemented yet`);
    this.name = 'NotImplementedError';
  }
}
