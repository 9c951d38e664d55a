/**
 * The dev loop's side of the type checker (typecheck-worker.ts runs in a worker thread): one
 * check at a time, in the order asked, each reported in two parts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface TypecheckWorkerData {
  readonly root: string;
  /** Colours and code frames, as tsc prints them to a terminal. */
  readonly color: boolean;
}

/**
 * `check`: check the program as it is now, reporting on the server's files; `rest`: report on
 * the other files of the last check (asked after the restart, so as not to slow it down).
 */
export type TypecheckRequest =
  | {
      readonly type: 'check';
      readonly id: number;
      /** Absolute path and text of files to check in place of what is on disk (the new generated/). */
      readonly overrides: ReadonlyArray<readonly [string, string]>;
    }
  | { readonly type: 'rest'; readonly id: number };

export interface TypecheckPart {
  readonly id: number;
  /** `server`: server/ without its tests, and generated/; `rest`: client/ and the tests. */
  readonly phase: 'server' | 'rest';
  readonly errors: number;
  /** tsc's own text of the diagnostics (file:line:column), empty when there are none. */
  readonly report: string;
  /** Since the check began. */
  readonly milliseconds: number;
}

export interface TypecheckRun {
  readonly server: Promise<TypecheckPart>;
  /** Checks client/ and the tests, as the program stands at the worker's last check. */
  rest(): Promise<TypecheckPart>;
}

export interface Typechecker {
  check(overrides?: ReadonlyArray<readonly [string, string]>): TypecheckRun;
  close(): Promise<void>;
}

export function startTypechecker(data: TypecheckWorkerData): Typechecker {
  // A worker does not inherit the loader the dev process runs under: it registers tsx itself.
  const workerUrl = new URL(`./typecheck-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
  const bootstrap =
    `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(workerUrl)}); });`;
  const worker = new Worker(bootstrap, { eval: true, workerData: data });
  /** The replies awaited, by phase and check. */
  const awaited = new Map<string, (part: TypecheckPart) => void>();
  const key = (phase: TypecheckPart['phase'], id: number): string => `${phase} ${id}`;
  let nextId = 1;
  let failure: string | undefined;

  const failed = (id: number, phase: TypecheckPart['phase']): TypecheckPart => ({
    id,
    phase,
    errors: 1,
    report: `${failure}\n`,
    milliseconds: 0,
  });
  const failAll = (message: string): void => {
    failure = message;
    for (const [name, reply] of awaited) {
      const [phase, id] = name.split(' ');
      reply(failed(Number(id), phase === 'server' ? 'server' : 'rest'));
    }
    awaited.clear();
  };
  const ask = (request: TypecheckRequest, phase: TypecheckPart['phase']): Promise<TypecheckPart> => {
    if (failure !== undefined) return Promise.resolve(failed(request.id, phase));
    const reply = new Promise<TypecheckPart>((resolve) => awaited.set(key(phase, request.id), resolve));
    worker.postMessage(request);
    return reply;
  };
  worker.on('message', (part: TypecheckPart) => {
    awaited.get(key(part.phase, part.id))?.(part);
    awaited.delete(key(part.phase, part.id));
  });
  worker.on('error', (error) => failAll(`the type checker stopped: ${error.stack ?? error.message}`));
  worker.on('exit', (code) => {
    if (failure === undefined) failAll(`the type checker exited (code ${code})`);
  });

  return {
    check(overrides = []) {
      const id = nextId;
      nextId += 1;
      let rest: Promise<TypecheckPart> | undefined;
      return {
        server: ask({ type: 'check', id, overrides }, 'server'),
        rest: () => (rest ??= ask({ type: 'rest', id }, 'rest')),
      };
    },
    async close() {
      if (failure === undefined) failAll('the type checker was closed');
      await worker.terminate();
    },
  };
}
