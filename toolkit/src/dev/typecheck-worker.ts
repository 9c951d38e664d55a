/**
 * The type checker of `npm run dev`, in a worker thread so that the dev process keeps responding
 * while it checks. It holds one TypeScript builder program between checks (the machinery of
 * `tsc --watch`): an unchanged file keeps its parsed source, and a check re-checks only the files
 * a change can affect. Files under node_modules are read once.
 *
 * A check takes the generated files as text (`overrides`), so that a new document's types are
 * checked while Redocly still lints it, before anything is written to generated/.
 *
 * A check reports on the server's own files (server/ without its tests, and generated/), which
 * decide whether the server restarts; the rest (client/ and the tests) is checked when asked,
 * after the restart, which it would otherwise slow down.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import ts from 'typescript';
import { isServerFile } from './changes.js';
import type { TypecheckPart, TypecheckRequest, TypecheckWorkerData } from './typecheck.js';

const { root, color } = workerData as TypecheckWorkerData;
const CHECKED = ['server', 'client', 'generated'].map((dir) => path.join(root, dir) + path.sep);

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

interface Cached {
  readonly text: string;
  readonly sourceFile: ts.SourceFile;
}
const sources = new Map<string, Cached>();
let overrides = new Map<string, string>();
let previous: ts.SemanticDiagnosticsBuilderProgram | undefined;
/** The other files of the last check: their diagnostics, computed when asked. */
let rest: () => ts.Diagnostic[] = () => [];

function readText(fileName: string): string | undefined {
  return overrides.get(fileName) ?? ts.sys.readFile(fileName);
}

/** A source file, the same object as last time when its text is unchanged (the builder then skips it). */
function sourceFileOf(
  fileName: string,
  languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions,
): ts.SourceFile | undefined {
  const cached = sources.get(fileName);
  if (cached !== undefined && fileName.includes(`${path.sep}node_modules${path.sep}`)) return cached.sourceFile;
  const text = readText(fileName);
  if (text === undefined) return undefined;
  if (cached !== undefined && cached.text === text) return cached.sourceFile;
  const sourceFile = ts.createSourceFile(fileName, text, languageVersion);
  // The builder compares versions to find what changed.
  (sourceFile as ts.SourceFile & { version: string }).version = createHash('sha1').update(text).digest('hex');
  sources.set(fileName, { text, sourceFile });
  return sourceFile;
}

function readConfig(): ts.ParsedCommandLine {
  const configHost: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.formatDiagnostic(diagnostic, formatHost));
    },
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), { noEmit: true }, configHost);
  if (parsed === undefined) throw new Error(`cannot read ${path.join(root, 'tsconfig.json')}`);
  return parsed;
}

function format(diagnostics: readonly ts.Diagnostic[]): string {
  if (diagnostics.length === 0) return '';
  return color
    ? ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost)
    : ts.formatDiagnostics(diagnostics, formatHost);
}

function part(
  id: number,
  phase: TypecheckPart['phase'],
  diagnostics: readonly ts.Diagnostic[],
  started: number,
): TypecheckPart {
  const errors = diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error).length;
  return { id, phase, errors, report: format(diagnostics), milliseconds: performance.now() - started };
}

function check(request: Extract<TypecheckRequest, { type: 'check' }>): void {
  const started = performance.now();
  overrides = new Map(request.overrides);
  // Read each time: a file added to server/ or client/ joins the next check.
  const config = readConfig();
  const rootNames = config.fileNames.filter((file) => CHECKED.some((dir) => path.resolve(file).startsWith(dir)));
  const host = ts.createCompilerHost(config.options, true);
  host.getSourceFile = (fileName, languageVersion) => sourceFileOf(fileName, languageVersion);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (fileName) => overrides.has(fileName) || fileExists(fileName);
  host.readFile = (fileName) => overrides.get(fileName) ?? readFile(fileName);

  // Without comments in the declarations the builder compares, a change to a description in the
  // document (a comment in openapi-types.ts) re-checks nothing else. Nothing is emitted.
  const options: ts.CompilerOptions = { ...config.options, removeComments: true };
  const builder = ts.createSemanticDiagnosticsBuilderProgram(rootNames, options, host, previous, config.errors);
  previous = builder;
  const program = builder.getProgram();
  const ours = program.getSourceFiles().filter((file) => CHECKED.some((dir) => file.fileName.startsWith(dir)));
  const isServer = (file: ts.SourceFile): boolean => isServerFile(path.relative(root, file.fileName));

  // Walk the files the change affects, checking the server's now and only marking the others,
  // whose turn comes after the server's report.
  while (builder.getSemanticDiagnosticsOfNextAffectedFile(undefined, (file) => !isServer(file)) !== undefined) {
    // each call checks one affected file
  }
  const global = [
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getOptionsDiagnostics(),
    ...builder.getGlobalDiagnostics(),
  ];
  const diagnosticsOf = (files: readonly ts.SourceFile[]): ts.Diagnostic[] =>
    files.flatMap((file) => [...builder.getSyntacticDiagnostics(file), ...builder.getSemanticDiagnostics(file)]);
  parentPort?.postMessage(part(request.id, 'server', [...global, ...diagnosticsOf(ours.filter(isServer))], started));
  rest = () => diagnosticsOf(ours.filter((file) => !isServer(file)));
}

parentPort?.on('message', (request: TypecheckRequest) => {
  const started = performance.now();
  try {
    if (request.type === 'check') check(request);
    else parentPort?.postMessage(part(request.id, 'rest', rest(), started));
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const phases = request.type === 'check' ? (['server', 'rest'] as const) : (['rest'] as const);
    for (const phase of phases) {
      parentPort?.postMessage({
        id: request.id,
        phase,
        errors: 1,
        report: `the type checker failed: ${message}\n`,
        milliseconds: 0,
      } satisfies TypecheckPart);
    }
  }
});
