/**
 * `npm run diff:api`: compares the document (openapi/openapi.yaml, bundled) with the latest
 * release in openapi/released/, prints every change classified (scripts/api-diff/), and fails
 * when a breaking change is neither covered by a new major version nor allowed, with its reason,
 * in openapi/breaking-changes-allowed.yaml. `--base FILE` or `--base-ref REF` compare with
 * another document; `--json` prints the report as JSON.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BundleError } from './codegen/bundle.js';
import { AllowListError, readAllowList } from './api-diff/gate.js';
import { listReleases } from './api-diff/releases.js';
import { PROJECT_FILES, buildReport, formatReport, reportJson } from './api-diff/report.js';
import { SourceError, loadDocumentAtRef, loadDocumentFile, loadReleasedDocument, type LoadedDocument } from './api-diff/sources.js';
import { parseFlags, runAsMain } from './cli.js';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const USAGE = `Usage: npm run diff:api -- [--base FILE | --base-ref REF] [--input FILE] [--allow FILE] [--json]

Compares the document with the latest release in ${PROJECT_FILES.released}/, prints every change
classified as breaking, non-breaking, deprecated, annotation or unclassified, and fails when a
breaking change is neither in a new major version (info.version's first number raised) nor
listed, with its reason, in the allow-list.

  --base FILE      compare with this document instead (YAML or JSON, one file or several)
  --base-ref REF   compare with ${PROJECT_FILES.document} as it is at git commit, branch or tag REF
  --input FILE     the document to check (default ${PROJECT_FILES.document})
  --allow FILE     the allow-list (default ${PROJECT_FILES.allowList})
  --json           print the report as JSON
  --help           show this text

Exit status: 0 when no breaking change blocks, 1 when one does or a document cannot be read,
2 on a wrong argument.`;

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Where paths given on the command line are read from. */
  readonly cwd: string;
  /** The project: its openapi/ folder and git repository. */
  readonly root: string;
}

export const PROCESS_IO: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  // npm runs scripts at the root; INIT_CWD is where the command was typed.
  cwd: process.env['INIT_CWD'] ?? process.cwd(),
  root: PROJECT_ROOT,
};

/** A path to show: relative to the project when inside it. */
function shown(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}

/** The latest release of the project, as the base of a comparison. */
export async function loadLatestRelease(root: string): Promise<LoadedDocument | undefined> {
  const folder = path.join(root, PROJECT_FILES.released);
  const latest = (await listReleases(folder)).at(-1);
  if (latest === undefined) return undefined;
  return loadReleasedDocument(path.join(folder, latest.file), `${PROJECT_FILES.released}/${latest.file}`);
}

export async function runDiffApi(argv: readonly string[], io: Io): Promise<number> {
  const started = performance.now();
  const values = parseFlags(argv, {
    base: { type: 'string' },
    'base-ref': { type: 'string' },
    input: { type: 'string' },
    allow: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean' },
  }, USAGE, io);
  if (typeof values === 'number') return values;
  if (values.base !== undefined && values['base-ref'] !== undefined) {
    io.stderr(`--base and --base-ref name two bases: give one.\n\n${USAGE}\n`);
    return 2;
  }
  const fromCommandLine = (file: string): string => path.resolve(io.cwd, file);
  try {
    const inputFile = values.input === undefined ? path.join(io.root, PROJECT_FILES.document) : fromCommandLine(values.input);
    const allowFile = values.allow === undefined ? path.join(io.root, PROJECT_FILES.allowList) : fromCommandLine(values.allow);
    const allowShown = shown(io.root, allowFile);
    const [current, base, allowances] = await Promise.all([
      loadDocumentFile(inputFile, shown(io.root, inputFile)),
      values.base !== undefined
        ? loadDocumentFile(fromCommandLine(values.base), shown(io.root, fromCommandLine(values.base)))
        : values['base-ref'] !== undefined
          ? loadDocumentAtRef(io.root, values['base-ref'], PROJECT_FILES.folder, PROJECT_FILES.rootFile)
          : loadLatestRelease(io.root),
      readAllowList(allowFile, allowShown),
    ]);
    if (base === undefined) {
      io.stderr(`diff:api: ${PROJECT_FILES.released}/ holds no release to compare with: run \`npm run release:api\` for the first, or give --base or --base-ref.\n`);
      return 1;
    }
    const report = buildReport(base, current, allowances, allowShown);
    const milliseconds = performance.now() - started;
    if (values.json === true) {
      io.stdout(`${JSON.stringify(reportJson(report, milliseconds), null, 2)}\n`);
    } else {
      const { stdout, stderr } = formatReport(report, milliseconds);
      io.stdout(stdout);
      if (stderr !== '') io.stderr(stderr);
    }
    return report.gate.passed ? 0 : 1;
  } catch (error) {
    if (error instanceof SourceError || error instanceof BundleError || error instanceof AllowListError) {
      io.stderr(`diff:api: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

// 'drain': a long report piped to another program is written in full first.
runAsMain(import.meta.url, (argv) => runDiffApi(argv, PROCESS_IO), { end: 'drain' });
