/**
 * The `contract-first` command: one subcommand per tool, each with its own `--help`.
 *
 *   contract-first new --input api.yaml --out my-api
 *   contract-first generate
 */
import { readFileSync } from 'node:fs';
import { runMain, type Command } from './cli.js';

interface Subcommand {
  readonly summary: string;
  readonly load: () => Promise<{ readonly COMMAND: Command }>;
}

/** The subcommands, in the order a project meets them. */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  new: { summary: 'write a new project for an OpenAPI 3.1 document', load: () => import('./new-api.js') },
  generate: {
    summary: "write generated/ from the project's documents (types, server skeleton, bundle)",
    load: () => import('./generate.js'),
  },
  lint: { summary: "lint the project's documents, or any document, with Redocly", load: () => import('./lint.js') },
  serve: {
    summary: 'serve a document from stubs, behind request and response validation',
    load: () => import('./serve.js'),
  },
  dev: {
    summary: 'serve the project, regenerating, type-checking and restarting on every save',
    load: () => import('./dev.js'),
  },
  check: {
    summary: 'send requests generated from a document to a running server and report where it breaks it',
    load: () => import('./check.js'),
  },
  diff: {
    summary: 'compare each document with its last release and reject unallowed breaking changes',
    load: () => import('./diff-api.js'),
  },
  release: {
    summary: 'release a document: a frozen copy and a changelog entry',
    load: () => import('./release-api.js'),
  },
  docs: {
    summary: 'write the offline reference page of each document (--check: check it in a browser)',
    load: () => import('./docs.js'),
  },
};

const version = (): string =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const USAGE = `Usage: contract-first <command> [options]

Contract-first APIs from one OpenAPI 3.1 document.

Commands:
${Object.entries(SUBCOMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(10)}${summary}`)
  .join('\n')}

  contract-first <command> --help   the options of a command
  contract-first --version          the version of this package`;

/** Runs the subcommand `argv[0]` with the rest of `argv`. */
export async function runCommand(argv: readonly string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return;
  }
  if (name === '--version' || name === '-v') {
    console.log(version());
    return;
  }
  const subcommand = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (subcommand === undefined) {
    console.error(`contract-first: ${name} is not a command\n\n${USAGE}`);
    process.exit(2);
  }
  // docs --check runs the browser check of the page docs writes.
  if (name === 'docs' && rest.includes('--check')) {
    const { COMMAND } = await import('./docs-check.js');
    runMain(
      COMMAND.run,
      rest.filter((arg) => arg !== '--check'),
      COMMAND.options,
    );
    return;
  }
  const { COMMAND } = await subcommand.load();
  runMain(COMMAND.run, rest, COMMAND.options);
}
