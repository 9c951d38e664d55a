import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The flag declarations `parseArgs` takes (its type is not exported by name). */
type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

export interface RunAsMainOptions {
  /** How an error that escapes `main` is printed (default: its message). */
  readonly describeError?: (error: unknown) => unknown;
  /**
   * 'exit' (default) ends the process with the code at once; 'drain' sets the code and lets
   * output piped to another program be written in full first.
   */
  readonly end?: 'exit' | 'drain';
  /** Given, a UsageError that escapes `main` is reported with this usage (reportUsageError, exit code 2). */
  readonly usage?: string;
}

/**
 * Runs `main` with the command-line arguments when `moduleUrl` (the caller's import.meta.url) is
 * the script Node was started with, so that a script's module can also be imported by tests.
 * `main` resolves to the exit code; a negative one means "keep running" (a server).
 */
export function runAsMain(
  moduleUrl: string,
  main: (argv: readonly string[]) => Promise<number>,
  options: RunAsMainOptions = {},
): void {
  const started = process.argv[1];
  if (started === undefined || moduleUrl !== pathToFileURL(started).href) return;
  runMain(main, process.argv.slice(2), options);
}

/** Runs `main` with `argv` and ends the process as `options` say (runAsMain, and the contract-first command). */
export function runMain(
  main: (argv: readonly string[]) => Promise<number>,
  argv: readonly string[],
  options: RunAsMainOptions = {},
): void {
  const describe = options.describeError ?? ((error: unknown) => (error instanceof Error ? error.message : error));
  main(argv).then(
    (code) => {
      if (code < 0) return;
      if (options.end === 'drain') process.exitCode = code;
      else process.exit(code);
    },
    (error: unknown) => {
      if (options.usage !== undefined && error instanceof UsageError)
        process.exit(reportUsageError(error.message, options.usage));
      console.error(describe(error));
      process.exit(1);
    },
  );
}

/** A subcommand of the contract-first command (command.ts): what it runs, and how it ends. */
export interface Command {
  readonly run: (argv: readonly string[]) => Promise<number>;
  readonly options?: RunAsMainOptions;
}

/** Where a script writes (console by default; tests pass their own). */
export interface ScriptOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const CONSOLE_OUTPUT: ScriptOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

type FlagsConfig<O extends ParseArgsOptionsConfig> = {
  args: string[];
  options: O;
  strict: true;
  allowPositionals: false;
};
/** The flags `parseFlags` read, typed from their declarations as `parseArgs` types them. */
export type Flags<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<FlagsConfig<O>>>['values'];

/**
 * The scripts' command line: `parseArgs`, strict and without positionals, and the same two endings
 * for every script: a flag it does not know or a flag without its value prints the reason and the
 * usage on stderr (exit code 2), `--help` prints the usage on stdout (exit code 0). Returns the
 * flags, or the exit code when the script ends there. `options` must declare `help`.
 */
export function parseFlags<const O extends ParseArgsOptionsConfig & { help: { type: 'boolean' } }>(
  argv: readonly string[],
  options: O,
  usage: string,
  output: ScriptOutput = CONSOLE_OUTPUT,
): Flags<O> | number {
  let values: Flags<O>;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }));
  } catch (error) {
    return reportUsageError(error instanceof Error ? error.message : String(error), usage, output);
  }
  if ((values as { help?: boolean }).help === true) {
    output.stdout(`${usage}\n`);
    return 0;
  }
  return values;
}

/** A command line the script cannot run; its message is the reason, printed with reportUsageError. */
export class UsageError extends Error {}

/**
 * The whole number a flag was given, from `min` to `max` (at most Number.MAX_SAFE_INTEGER), or
 * `fallback` when it was not given; otherwise a UsageError naming the flag and its range (a
 * missing flag without a fallback too).
 */
export function wholeNumberFlag(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
  fallback?: number,
): number {
  if (text === undefined && fallback !== undefined) return fallback;
  if (text === undefined) throw new UsageError(`${flag} is required: a whole number from ${min} to ${max}.`);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}; got ${JSON.stringify(text)}.`);
  }
  return Number(text);
}

/**
 * A command line the script cannot run: the reason, a blank line and the usage on stderr, as
 * parseFlags prints them for a flag it does not know. Returns the exit code, 2.
 */
export function reportUsageError(
  reason: string,
  usage: string,
  output: Pick<ScriptOutput, 'stderr'> = CONSOLE_OUTPUT,
): 2 {
  output.stderr(`${reason}\n\n${usage}\n`);
  return 2;
}
