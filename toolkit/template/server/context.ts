import type { Request } from 'express';

/**
 * What every handler receives besides its input: the request it responds to. Add what your handlers
 * share (a database, a clock) here and where server/app.ts builds it.
 */
export interface Context {
  readonly request: Request;
}
