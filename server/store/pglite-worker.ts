/**
 * The program of the embedded database's thread, which pglite-thread.ts starts: the service of
 * pglite-service.ts on the thread's port to the server's thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ThreadData } from './pglite-thread-messages.js';
import { serveEmbeddedDatabase } from './pglite-service.js';

if (parentPort === null) throw new Error("pglite-worker.ts is the database thread's program: startPGliteThread (pglite-thread.ts) runs it.");
await serveEmbeddedDatabase(parentPort, workerData as ThreadData);
