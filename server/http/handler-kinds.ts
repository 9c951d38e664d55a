import type { Kysely, Transaction } from 'kysely';
import type { AnyOperationResult, OperationHandler, OperationId, OperationInput } from '../../generated/server.js';
import type { CursorCodec } from '../domain/cursor.js';
import type { Principal, TokenService } from '../domain/tokens.js';
import type { Logger } from '../logger.js';
import type { Clock, IdGenerator } from '../clock-and-ids.js';
import type { AtCommit, DB, RunOverRows } from '../database/index.js';
import type { ReadCard } from '../store/card-reads.js';
import type { WRITE_REQUEST_HEADERS } from './route-policy.js';

/**
 * The two kinds of handler, each declared beside its operation: `operation(...)` runs on the
 * database as it is; `idempotentWrite(...)` runs in one transaction that also stores its response
 * under the request's Idempotency-Key (server/http/unit-of-work.ts). Which kind an operation
 * needs is read from the document: a signed write (one that declares the write-request headers)
 * must be an idempotent write, and any other operation must not; `ServiceHandlers` makes a wrong
 * kind a compile error.
 */

/** Long-lived parts every handler may use. */
export interface Services {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly tokens: TokenService;
  /** Issues tokens dated `ms` instead of now (the token endpoint, in the second of a revocation). */
  readonly tokensDatedAt: (ms: number) => TokenService;
  readonly cursors: CursorCodec;
  readonly paymentNetworkDelayMs: number;
  /** A card with its usage, read on `db` with the other reads of the same moment (store/card-reads.ts). */
  readonly readCard: ReadCard;
  /** Runs a write's statement over rows on `db`, with those of the writes of the same moment (store/rows-together.ts). */
  readonly runOverRows: RunOverRows;
}

/**
 * The long-lived parts a write handler may use: all but the database and what reads it (it
 * reaches the database through its transaction only). A statement on the database beside the
 * transaction would wait for the transaction's end on the embedded database (one connection), and
 * on PostgreSQL hold a second connection of the pool while the first waits for it.
 */
export type WriteServices = Omit<Services, 'db' | 'readCard' | 'runOverRows'>;

interface RequestContext<S> {
  /** One clock reading for the whole request, in Unix milliseconds. */
  readonly now: number;
  readonly services: S;
  /** A request header the document cannot declare as a parameter (Authorization on the token endpoint). */
  header(name: string): string | undefined;
}

/** What an `operation` handler gets besides its validated input. */
export interface OperationContext extends RequestContext<Services> {
  readonly db: Kysely<DB>;
  /** The caller, for operations that require a bearer token. */
  readonly principal: Principal | undefined;
}

/**
 * What an `idempotentWrite` handler gets: its transaction, which commits only with the stored
 * response, and nothing else of the database (WriteServices).
 */
export interface WriteContext extends RequestContext<WriteServices> {
  readonly tx: Transaction<DB>;
  /** A signed write is always authenticated. */
  readonly principal: Principal;
  /**
   * Sends a statement after the handler returns, as the transaction's last, with the stored
   * response and the commit in one round trip (server/database/at-commit.ts): the statement that takes
   * a row every write of its kind needs, so that the row is held only inside the database, or one
   * whose result the response does not need (a create's insert). The handler responds as if the
   * statement does its part, which the statement makes sure of by failing when it cannot
   * (conditionHolds); then nothing commits and the handler runs once more, in a new transaction,
   * with `atCommit` undefined: it runs that statement in place and responds from what it finds.
   */
  readonly atCommit: AtCommit | undefined;
}

/** Runs a handler of either kind for one request; the HTTP layer gives one to each request. */
export interface UnitOfWork {
  operation<R extends AnyOperationResult>(handler: (ctx: OperationContext) => Promise<R>): Promise<R>;
  idempotentWrite<R extends AnyOperationResult>(handler: (ctx: WriteContext) => Promise<R>): Promise<R>;
}

export type OperationKind = keyof UnitOfWork;

/** A handler as the generated routes call it, marked with its kind. */
export type KindedHandler<K extends OperationId, Kind extends OperationKind> = OperationHandler<K, UnitOfWork> & {
  readonly kind: Kind;
};

/** Declares a handler that runs on the database as it is (reads, and the token endpoint). */
export function operation<K extends OperationId>(
  handler: OperationHandler<K, OperationContext>,
): KindedHandler<K, 'operation'> {
  return Object.assign((input: OperationInput<K>, unit: UnitOfWork) => unit.operation((ctx) => handler(input, ctx)), {
    kind: 'operation' as const,
  });
}

/** Declares a handler whose statements and stored response commit in one transaction. */
export function idempotentWrite<K extends OperationId>(
  handler: OperationHandler<K, WriteContext>,
): KindedHandler<K, 'idempotentWrite'> {
  return Object.assign(
    (input: OperationInput<K>, unit: UnitOfWork) => unit.idempotentWrite((ctx) => handler(input, ctx)),
    {
      kind: 'idempotentWrite' as const,
    },
  );
}

type Declares<Headers, Name extends string> = string extends keyof Headers
  ? false
  : Name extends keyof Headers
    ? true
    : false;

/** The operations that declare every write-request header: the signed, idempotent writes. */
export type SignedWriteId = {
  [K in OperationId]: Declares<OperationInput<K>['headers'], (typeof WRITE_REQUEST_HEADERS)[number]> extends true
    ? K
    : never;
}[OperationId];

/** One handler per operation, of the kind its declaration in the document needs. */
export type ServiceHandlers = {
  readonly [K in OperationId]: KindedHandler<K, K extends SignedWriteId ? 'idempotentWrite' : 'operation'>;
};

/** The organization of the authenticated caller; only operations with a security requirement call it. */
export function organizationOf(ctx: OperationContext | WriteContext): string {
  if (ctx.principal === undefined) throw new Error('organizationOf called on an operation without authentication');
  return ctx.principal.organizationId;
}
