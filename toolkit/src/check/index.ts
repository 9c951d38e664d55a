/**
 * `contract-first/check`: the contract checker as a library. `runCheck` is `contract-first check`
 * without the command line; the rest is what an `--auth` module and a plug-in (plugin.ts) build
 * on: the requests it sends, the responses it reads, and the values it generates from schemas.
 */
export type { AuthContext, CheckAuth } from './auth.js';
export {
  shapeTypes,
  insideBounds,
  outsideBounds,
  wrongTypes,
  type BoundaryValue,
  type WrongTypeValue,
} from './bounds.js';
export type { OutgoingRequest } from './cases.js';
export {
  atPointer,
  readOperations,
  requiresCredentials,
  type CheckedDocument,
  type OperationSpec,
  type ParameterSpec,
} from './document.js';
export {
  PLUGIN_NAME,
  Turns,
  type CaseContext,
  type CheckPlugin,
  type PluginCase,
  type PluginExchange,
  type PluginStream,
  type PluginVerdict,
} from './plugin.js';
export { FINDING_KINDS, type FindingKind } from './judge.js';
export type { CheckReport, CheckWarning, FindingReport, OperationSummary, RunStatistics } from './report.js';
export { MAX_HEAD_OCTETS, Sender, type Outcome, type ReceivedResponse } from './requests.js';
export { CheckUsageError, runCheck, runCheckDetailed, type CheckOptions, type CheckRun } from './run.js';
export { clientWireText } from './serialize.js';
export { flatten, type Shape } from './shape.js';
export { valuesOf, type Channel } from './values.js';
