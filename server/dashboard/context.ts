import type { Kysely } from 'kysely';
import type { Invoke } from '../../generated/dashboard/server.js';
import type { CursorCodec } from '../domain/cursor.js';
import type { Logger } from '../logger.js';
import type { Clock, IdGenerator } from '../clock-and-ids.js';
import type { DB } from '../database/index.js';
import { SESSION, sessionTokenOf, type RequestSession, type SessionLocals } from './session.js';
import { sendResult } from 'contract-first/runtime';

/** Long-lived parts the dashboard's handlers use. */
export interface DashboardServices {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly cursors: CursorCodec;
  /** The service secret CSRF tokens are derived with (session.ts, csrfTokenOf). */
  readonly csrfKey: Buffer;
  /** The session cookie is `Secure` in production (the document's "Sessions" table). */
  readonly secureCookies: boolean;
  readonly paymentNetworkDelayMs: number;
}

/** What a dashboard handler gets besides its validated input. */
export interface DashboardContext {
  /** One clock reading for the whole request, in Unix milliseconds. */
  readonly now: number;
  readonly db: Kysely<DB>;
  readonly services: DashboardServices;
  /** The live session; undefined only for login, which needs none. */
  readonly session: RequestSession | undefined;
  /** The session token the browser sent, live or not (login ends the session it names). */
  readonly sentSessionToken: string | undefined;
}

/** The session of an operation that requires one (every operation but login). */
export function sessionOf(ctx: DashboardContext): RequestSession {
  if (ctx.session === undefined) throw new Error('sessionOf called on an operation without a session');
  return ctx.session;
}

/**
 * Runs a dashboard operation and sends its response. Its writes take no idempotency key (the
 * document's "Transfer decisions"); those that change several rows are transactions of the store
 * (approve, reject) or of the handler (card limits).
 */
export function createDashboardInvoke(services: DashboardServices): Invoke<DashboardContext> {
  return async (_route, req, res, run) => {
    const ctx: DashboardContext = {
      now: services.clock.now(),
      db: services.db,
      services,
      session: (res.locals as SessionLocals)[SESSION],
      sentSessionToken: sessionTokenOf(req),
    };
    sendResult(res, await run(ctx));
  };
}
