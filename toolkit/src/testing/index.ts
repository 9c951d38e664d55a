/**
 * `contract-first/testing`: what a project's tests build on. Requests made of the document's own
 * examples for each operation (contract-cases.ts), and the dev command as a child process
 * (dev/harness.ts).
 */
export {
  contractCases,
  declares,
  withUndeclaredParameter,
  type CaseRoute,
  type ContractCase,
  type CredentialParts,
  type SampleRequest,
  type TestCredentials,
} from './contract-cases.js';
export {
  presentCredentials,
  sampleRequest,
  sampleRequestWithAnyCredentials,
  type SampleRoute,
} from './sample-request.js';
export { saveFile, startDevProcess, type DevProcess } from '../dev/harness.js';
export { compileDiagnostics } from '../codegen/compile-diagnostics.js';
