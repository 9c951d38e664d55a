import { fileURLToPath } from 'node:url';
import type { Express, Request } from 'express';
import { mountOperations, routeList, securitySchemes, serverBases } from '../generated/server.js';
import type { Context } from './context.js';
import { handlers as documentHandlers } from './handlers/index.js';
import { verifiers } from './security.js';
import { createContractApp } from 'contract-first/runtime';

/** The document the validator checks every request (and, in development and tests, every response) against. */
const DOCUMENT = fileURLToPath(new URL('../generated/openapi.json', import.meta.url));

export interface AppOptions {
  /** Check every response against the document: on in development and tests, off in production. */
  readonly validateResponses: boolean;
  /** Where failures that are not the client's go. */
  readonly log?: (line: string) => void;
  /** The handlers (server/handlers/ by default; a test may wrap them). */
  readonly handlers?: typeof documentHandlers;
}

/** What each handler receives besides its input (server/context.ts). */
const contextOf = (request: Request): Context => ({ request });

/**
 * The server of the document: each request is routed, its credentials verified (server/security.ts),
 * its parameters and body validated, and only then handed to its handler (server/handlers/).
 */
export function createApp(options: AppOptions): Express {
  return createContractApp({
    apiSpec: DOCUMENT,
    routeList,
    securitySchemes,
    serverBases,
    mountOperations,
    handlers: options.handlers ?? documentHandlers,
    verifiers,
    context: contextOf,
    validateResponses: options.validateResponses,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
}
