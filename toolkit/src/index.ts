/**
 * `contract-first`: the commands as functions, for scripts and tests that drive the toolkit
 * without a child process. The command line is `contract-first <command>` (command.ts).
 */
export {
  bundleDocument,
  BundleError,
  isReference,
  resolveLocal,
  type OpenApiDocument,
  type Reference,
} from './codegen/bundle.js';
export { scaffoldHandlers } from './codegen/scaffold.js';
export { successExample, type SuccessExample } from './codegen/examples.js';
export {
  GeneratorError,
  readDocument,
  type DocumentModel,
  type OperationInfo,
  type SecuritySchemeInfo,
  type Warning,
} from './codegen/operations.js';
export { ConfigError, findProjectRoot, readProjectConfig, type ApiConfig, type ProjectConfig } from './config.js';
export { runDiffApi, type Io } from './diff-api.js';
export { buildDocs, docsTargets, documentWithChangelog, projectDocsPaths, type DocsPaths } from './docs.js';
export {
  findStaleFiles,
  generate,
  generateFiles,
  projectDocuments,
  type GeneratedFile,
  type GenerateOptions,
  type Generation,
  type ProjectDocument,
} from './generate.js';
export { lintDocument, type LintFinding } from './lint/lint-document.js';
export { newApi, NewApiError, type NewApiOptions, type NewApiResult } from './new-api.js';
export { runReleaseApi } from './release-api.js';
export { serve, servingLines, type ServeOptions, type Serving } from './serve.js';
export type { CheckAuth } from './check/auth.js';
export { meaningfulLines, RedoclyError, runRedocly, type CommandResult } from './redocly.js';
