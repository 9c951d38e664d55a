import { pathToFileURL } from 'node:url';

export interface RunAsMainOptions {
  /** How an error that escapes `main` is printed (default: its message). */
  readonly describeError?: (error: unknown) => unknown;
  /**
   * 'exit' (default) ends the process with the code at once; 'drain' sets the code and lets
   * output piped to another program be written in full first.
   */
  readonly end?: 'exit' | 'drain';
}

/**
 * Runs `main` with the command-line arguments when `moduleUrl` (the caller's import.meta.url) is
 * the script Node was started with, so that a script's module can also be imported by tests.
 * `main` resolves to the exit code; a negative one means "keep running" (a server).
 */
export function runAsMain(moduleUrl: string, main: (argv: readonly string[]) => Promise<number>, options: RunAsMainOptions = {}): void {
  const started = process.argv[1];
  if (started === undefined || moduleUrl !== pathToFileURL(started).href) return;
  const describe = options.describeError ?? ((error: unknown) => (error instanceof Error ? error.message : error));
  main(process.argv.slice(2)).then(
    (code) => {
      if (code < 0) return;
      if (options.end === 'drain') process.exitCode = code;
      else process.exit(code);
    },
    (error: unknown) => {
      console.error(describe(error));
      process.exit(1);
    },
  );
}
