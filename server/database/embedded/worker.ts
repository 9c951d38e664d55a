/**
 * The program of the embedded database's thread, which thread.ts starts: the service of
 * service.ts on the thread's port to the server's thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ThreadData } from './thread-messages.js';
import { serveEmbeddedDatabase } from './service.js';

if (parentPort === null)
  throw new Error("worker.ts is the database thread's program: startPGliteThread (thread.ts) runs it.");
await serveEmbeddedDatabase(parentPort, workerData as ThreadData);
