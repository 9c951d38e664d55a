import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import type { Arbitrary } from 'fast-check';
import { UsageError } from '../cli.js';
import { bundleDocument } from '../codegen/bundle.js';
import {
  credentialsSetParameter,
  withCredentials,
  type AuthContext,
  type CheckAuth,
  type Credentials,
  type PreparedRequest,
} from './auth.js';
import { planOperation, type OutgoingRequest } from './cases.js';
import { readOperations, requiresCredentials, selects, type CheckedDocument, type OperationSpec } from './document.js';
import { DrawStream, FixedValues, streamSeed } from './draws.js';
import { edgeRequests, type EdgeRequest } from './edges.js';
import { findingReport, Findings, shrink, type Origin } from './findings.js';
import { judge, type Intent, type Verdict } from './judge.js';
import {
  PLUGIN_NAME,
  Turns,
  type CaseContext,
  type CheckPlugin,
  type PluginExchange,
  type PluginStream,
  type PluginVerdict,
} from './plugin.js';
import type { CheckReport, RunStatistics } from './report.js';
import { Sender, type Outcome } from './requests.js';
import {
  CaseRunners,
  type CaseRunner,
  type Exchange,
  type OperationState,
  type Stream,
  type StreamName,
} from './runners.js';
import { Schemas } from './schemas.js';
import { selectChecks } from './selection.js';
import { mayCreate } from './sequences.js';
import { OperationTallies } from './summary.js';
import { StatusCounts, Timings } from './timings.js';
import { changeCount } from './wrong-credentials.js';

/**
 * One run of the checker: reads the document, builds each operation's edge requests (edges.ts: the
 * same in every run, sent first), generates its other requests (valid ones, invalid ones, ones
 * without credentials and with wrong ones, create-then-use sequences: runners.ts), sends them with
 * a fixed number in flight, judges every response (judge.ts), keeps the failures of the selected
 * checks (selection.ts), shrinks each distinct one to a small request with fast-check before it is
 * reported (findings.ts), and counts each operation's requests and 2xx responses (summary.ts).
 *
 * Every request is the value at some index of a fast-check stream seeded from the run's seed, the
 * operation and the stream (so that --include of one operation generates the same values as the
 * whole run), in the order `fc.check` would generate them (draws.ts): a failing case is shrunk by
 * `fc.check` replaying that index, and the run is replayed with the same seed.
 *
 * Plug-ins (plugin.ts) add streams of their own to each operation, checks on every response, and a
 * hook around each request run in its serialization key's turn; their findings go the same way.
 */

export interface CheckOptions {
  /** The OpenAPI 3.1 document (YAML or JSON, external references allowed). */
  readonly input: string;
  readonly baseUrl: string;
  /** Valid requests per operation (default 50), after its edge requests (none when 0); as many invalid ones. */
  readonly cases?: number;
  /** Default: random (the report says which). */
  readonly seed?: number;
  /** operationIds, or `METHOD /path`: only these / not these. */
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  /** Stop generating new requests after this many seconds. */
  readonly timeLimitSeconds?: number;
  /** One response's deadline (default 5000); past it, the finding is a hang. */
  readonly timeoutMs?: number;
  /** Requests in flight (default 8). */
  readonly concurrency?: number;
  /** Sent with every request as credentials (`--header`). */
  readonly headers?: readonly (readonly [string, string])[];
  readonly auth?: CheckAuth;
  /** Invalid requests, and requests without credentials or with wrong ones (default true). */
  readonly negative?: boolean;
  /** The checks that judge the responses, by finding kind (`all`: every one; the default). */
  readonly checks?: readonly string[];
  /** Checks left out, by finding kind. */
  readonly excludeChecks?: readonly string[];
  /** Create-then-use sequences (default true). */
  readonly sequences?: boolean;
  /** The command-line words a replay repeats besides input, base URL, seed, operations and cases (credentials, deadline). */
  readonly replayFlags?: readonly string[];
  /** How `input` is written in replay commands (default: as given). */
  readonly inputAsTyped?: string;
  /** What the API's own tests add: case streams, checks, hooks around requests (plugin.ts). */
  readonly plugins?: readonly CheckPlugin[];
}

export interface CheckRun {
  readonly report: CheckReport;
  readonly statistics: RunStatistics;
  /** The keys of the operations checked, in document order. */
  readonly operations: readonly string[];
}

/** An option or a selection the run cannot start with. */
export class CheckUsageError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'CheckUsageError';
  }
}

/**
 * Requests without credentials or with wrong ones, and create-then-use sequences: one per ten valid
 * requests, a few at least and at most (wrong credentials: at least one for each way of making each
 * of the operation's credentials wrong).
 */
const noCredentialCount = (cases: number): number => Math.min(5, Math.max(1, Math.ceil(cases / 10)));
const sequenceCount = (cases: number): number => Math.max(1, Math.ceil(cases / 10));

/**
 * Shrinking budget: fast-check stops shrinking one failure after SHRINK_MS (keeping the smallest
 * failing request so far), and the run stops shrinking after SHRINK_TOTAL_MS.
 */
const SHRINK_MS = 5_000;
const SHRINK_TOTAL_MS = 30_000;

function selectOperations(
  checked: CheckedDocument,
  include: readonly string[],
  exclude: readonly string[],
): OperationSpec[] {
  for (const selector of [...include, ...exclude]) {
    if (!checked.operations.some((operation) => selects(selector, operation))) {
      throw new CheckUsageError(
        `no operation of the document is "${selector}": name an operationId, or METHOD /path for one without`,
      );
    }
  }
  return checked.operations.filter(
    (operation) =>
      (include.length === 0 || include.some((selector) => selects(selector, operation))) &&
      !exclude.some((selector) => selects(selector, operation)),
  );
}

/**
 * Each operation's streams of fixed values (its edge requests) first, then its drawn streams
 * interleaved case by case; the operations taken in turn.
 */
function* tasks(states: Iterable<OperationState>): Generator<Origin> {
  function* ofOperation(state: OperationState): Generator<Origin> {
    const fixed = state.streams.filter((stream) => stream.draws instanceof FixedValues);
    const drawn = state.streams.filter((stream) => !(stream.draws instanceof FixedValues));
    for (const stream of fixed)
      for (let index = 0; index < stream.count; index += 1) yield { operation: state.spec, stream, index };
    for (let index = 0; drawn.some((stream) => index < stream.count); index += 1) {
      for (const stream of drawn) if (index < stream.count) yield { operation: state.spec, stream, index };
    }
  }
  let active = [...states].map(ofOperation);
  while (active.length > 0) {
    const next: Generator<Origin>[] = [];
    for (const operationTasks of active) {
      const step = operationTasks.next();
      if (step.done === true) continue;
      yield step.value;
      next.push(operationTasks);
    }
    active = next;
  }
}

/** Notes on operations whose generated requests were mostly not sent. */
function unsentNotes(states: Iterable<OperationState>): string[] {
  const notes: string[] = [];
  for (const state of states) {
    const valid = state.streams.find((stream) => stream.name === 'valid');
    if (valid === undefined) continue;
    if (state.notValid * 2 > valid.count) {
      notes.push(
        `${state.spec.pointer}: ${state.notValid} of the ${valid.count} requests generated for ${state.spec.key} did not match the document's schemas and were not sent (constraints the generator cannot combine: several patterns, not, if/then)`,
      );
    }
    if (state.notSendable * 2 > valid.count) {
      notes.push(
        `${state.spec.pointer}: ${state.notSendable} of the ${valid.count} requests generated for ${state.spec.key} could not be sent (a path segment empty, '.' or '..', a header value HTTP cannot carry)`,
      );
    }
  }
  return notes;
}

/** Runs the checker and returns its report with what the text summary adds. */
export async function runCheckDetailed(options: CheckOptions): Promise<CheckRun> {
  const started = Date.now();
  const cases = options.cases ?? 50;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const timeoutMs = options.timeoutMs ?? 5000;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const credentials: Credentials = { headers: options.headers ?? [], auth: options.auth };
  const plugins = options.plugins ?? [];
  for (const plugin of plugins) {
    if (!PLUGIN_NAME.test(plugin.name))
      throw new CheckUsageError(
        `plug-in name "${plugin.name}": lower-case letters, digits and dashes, starting with a letter`,
      );
  }
  const selection = selectChecks(
    options.checks,
    options.excludeChecks,
    plugins.map((plugin) => plugin.name),
  );
  if (typeof selection === 'string') throw new CheckUsageError(selection);

  const checked = readOperations(await bundleDocument(path.resolve(options.input)));
  const selected = selectOperations(checked, options.include ?? [], options.exclude ?? []);
  const { document } = checked;
  const schemas = new Schemas(document);
  const notes: string[] = [...checked.notes];

  const timings = new Timings();
  const statuses = new StatusCounts();
  const tallies = new OperationTallies();
  const sender = new Sender({ timeoutMs, concurrency });
  let requests = 0;
  const sendCounted = async (operation: OperationSpec, intent: Intent, request: OutgoingRequest): Promise<Outcome> => {
    const outcome = await sender.send(request);
    tallies.add(operation.key, intent.kind, outcome);
    if (outcome.kind === 'unsendable') return outcome;
    requests += 1;
    timings.add(outcome.kind === 'response' ? outcome.response.ms : outcome.ms);
    statuses.add(outcome.kind === 'response' ? outcome.response.status : null);
    return outcome;
  };
  const authContext = (operation: OperationSpec): AuthContext => ({
    operation: operation.key,
    method: operation.method,
    path: operation.path,
    security: operation.security,
    securitySchemes: checked.securitySchemes,
    key: currentCase.getStore()?.key,
  });
  const prepare = (operation: OperationSpec, request: OutgoingRequest): Promise<PreparedRequest> =>
    withCredentials(request, credentials, authContext(operation));
  const send = async (
    operation: OperationSpec,
    prepared: PreparedRequest,
    intent: Intent,
    context?: string,
    expect?: unknown,
  ): Promise<Exchange> => {
    if (plugins.length > 0) return pluginExchange(operation, prepared, intent, context, expect);
    const outcome = await sendCounted(operation, intent, prepared.sent);
    return {
      operation,
      request: prepared,
      outcome,
      verdicts: judge(operation, outcome, intent, schemas, timeoutMs),
      context,
    };
  };
  const exchange = async (
    operation: OperationSpec,
    request: OutgoingRequest,
    intent: Intent,
    withCredentialsToo: boolean,
    context?: string,
    expect?: unknown,
  ): Promise<Exchange> => {
    const prepared = withCredentialsToo ? await prepare(operation, request) : { sent: request, shown: request };
    if (
      intent.kind === 'invalid' &&
      intent.parameter !== undefined &&
      credentialsSetParameter(request, prepared.sent, intent.parameter)
    ) {
      const note = `${operation.pointer}: operation ${operation.key}: invalid values of ${intent.parameter.in} ${intent.parameter.name} not sent: the credentials set it`;
      if (!notes.includes(note)) notes.push(note);
      return { operation, request: prepared, outcome: { kind: 'unsendable', message: note }, verdicts: [], context };
    }
    return send(operation, prepared, intent, context, expect);
  };
  // Each case runs in its serialization key's turn (plugin.ts), its exchanges told which case they belong to.
  const turns = new Turns();
  const currentCase = new AsyncLocalStorage<CaseContext>();
  const inTurn = <T>(operation: OperationSpec, stream: string, index: number, run: () => Promise<T>): Promise<T> => {
    if (plugins.length === 0) return run();
    const base = { operation, stream, index };
    let key: string | undefined;
    for (const plugin of plugins) key ??= plugin.serialize?.(base);
    return turns.take(key, () => currentCase.run({ ...base, key }, run));
  };
  const pluginVerdicts = (found: readonly PluginVerdict[], outcome: Outcome): Verdict[] =>
    found.map((verdict) => ({
      kind: verdict.kind,
      detail: verdict.detail,
      message: verdict.message,
      status: outcome.kind === 'response' ? outcome.response.status : null,
    }));
  const pluginExchange = async (
    operation: OperationSpec,
    request: PreparedRequest,
    intent: Intent,
    context: string | undefined,
    expect: unknown,
  ): Promise<Exchange> => {
    const scope = currentCase.getStore() ?? { operation, stream: 'valid', index: 0, key: undefined };
    const extra: Verdict[] = [];
    let sent: Exchange | undefined;
    let seen: PluginExchange | undefined;
    let sendOnce = async (): Promise<PluginExchange> => {
      const outcome = await sendCounted(operation, intent, request.sent);
      seen = { case: scope, operation, request: request.sent, outcome, expect, intent: intent.kind };
      const verdicts: Verdict[] = judge(operation, outcome, intent, schemas, timeoutMs);
      for (const plugin of plugins)
        if (plugin.judge !== undefined) verdicts.push(...pluginVerdicts(await plugin.judge(seen), outcome));
      sent = { operation, request, outcome, verdicts, context };
      return seen;
    };
    for (const plugin of [...plugins].reverse()) {
      const { around } = plugin;
      if (around === undefined) continue;
      const inner = sendOnce;
      sendOnce = async () => {
        let got: PluginExchange | undefined;
        const verdicts = await around.call(plugin, scope, request.sent, async () => (got = await inner()));
        if (got === undefined)
          throw new CheckUsageError(`plug-in ${plugin.name}: around() returned without calling send()`);
        extra.push(...pluginVerdicts(verdicts, got.outcome));
        return got;
      };
    }
    await sendOnce();
    const done = sent as Exchange | undefined;
    if (done === undefined || seen === undefined)
      throw new CheckUsageError('a plug-in hook returned without sending the request');
    return { ...done, verdicts: [...done.verdicts, ...extra] };
  };

  const states = new Map<string, OperationState>();
  /** A plug-in stream's case: its request built in the case's turn, sent as the plug-in says. */
  const pluginRunner =
    (state: OperationState, added: PluginStream<unknown>): CaseRunner<unknown> =>
    async (value, index) => {
      const scope = currentCase.getStore() ?? { operation: state.spec, stream: added.name, index, key: undefined };
      const built = await added.build(value, scope);
      if (built === undefined) return 'skipped';
      const intent: Intent = { kind: 'plugin', againstDocument: built.judgeAgainstDocument ?? false };
      const sent = await exchange(
        state.spec,
        built.request,
        intent,
        built.withCredentials ?? false,
        built.context,
        built.expect,
      );
      return sent.outcome.kind === 'unsendable' ? 'skipped' : [sent];
    };
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const runners = new CaseRunners({
    document,
    schemas,
    baseUrl,
    seed,
    operations: selected,
    states,
    securitySchemes: checked.securitySchemes,
    note: (text) => {
      if (!notes.includes(text)) notes.push(text);
    },
    prepare,
    send,
    exchange,
  });
  const credentialsGiven = credentials.headers.length > 0 || credentials.auth !== undefined;
  for (const operation of selected) {
    const plan = planOperation(document, operation);
    notes.push(...plan.notes);
    if (plan.valid === undefined) {
      notes.push(
        `${operation.pointer}: operation ${operation.key} not checked: a value it requires cannot be generated`,
      );
      continue;
    }
    const state: OperationState = {
      spec: operation,
      plan,
      valid: plan.valid,
      streams: [],
      notValid: 0,
      notSendable: 0,
    };
    const stream = <T>(name: StreamName, count: number, arbitrary: Arbitrary<T>, run: CaseRunner<T>): void => {
      const added: Stream = {
        name,
        count,
        draws: new DrawStream<unknown>(arbitrary, streamSeed(seed, operation.key, name)),
        run: (value, index, prefer) => inTurn(operation, name, index, () => run(value as T, index, prefer)),
      };
      state.streams.push(added);
    };
    // The edge requests are valid ones: sent when the run sends valid requests at all.
    const edges = cases > 0 ? edgeRequests(document, plan, schemas, baseUrl) : [];
    if (edges.length > 0) {
      const run = runners.edge(state);
      state.streams.push({
        name: 'edge',
        count: edges.length,
        draws: new FixedValues(edges),
        run: (value, index, prefer) => inTurn(operation, 'edge', index, () => run(value as EdgeRequest, index, prefer)),
      });
    }
    stream('valid', cases, plan.valid, runners.valid(state));
    if (options.negative ?? true) {
      stream('invalid', cases, plan.valid, runners.invalid(state));
      if (requiresCredentials(operation.security)) {
        stream('no-credentials', noCredentialCount(cases), plan.valid, runners.withoutCredentials(state));
        // Only the credentials the run was given can be made wrong.
        const changes = [...new Set(operation.security.flatMap((alternative) => Object.keys(alternative)))].reduce(
          (sum, name) => sum + changeCount(checked.securitySchemes[name]),
          0,
        );
        if (credentialsGiven && changes > 0)
          stream(
            'wrong-credentials',
            Math.max(noCredentialCount(cases), changes),
            plan.valid,
            runners.wrongCredentials(state),
          );
      }
    }
    if ((options.sequences ?? true) && mayCreate(selected, operation))
      stream('sequence', sequenceCount(cases), plan.valid, runners.sequence(state));
    for (const plugin of plugins) {
      for (const added of plugin.streams?.(operation) ?? [])
        stream(`${plugin.name}:${added.name}`, added.count, added.arbitrary, pluginRunner(state, added));
    }
    states.set(operation.key, state);
  }

  const findings = new Findings(selection);
  let skipped = 0;
  let unbreakable = 0;
  const deadline = options.timeLimitSeconds === undefined ? Infinity : started + options.timeLimitSeconds * 1000;
  const queue = tasks(states.values());
  const worker = async (): Promise<void> => {
    for (let step = queue.next(); step.done !== true && Date.now() < deadline; step = queue.next()) {
      const origin = step.value;
      const result = await origin.stream.run(origin.stream.draws.at(origin.index), origin.index);
      if (result === 'skipped') skipped += 1;
      else if (result === 'unbreakable') unbreakable += 1;
      else findings.add(origin, result);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
    const shrinkUntil = Date.now() + SHRINK_TOTAL_MS;
    for (const found of findings.all()) {
      const left = shrinkUntil - Date.now();
      if (left <= 0) break;
      await shrink(found, Math.min(SHRINK_MS, left));
    }
  } finally {
    sender.close();
  }
  notes.push(...unsentNotes(states.values()), ...schemas.notes);

  const replay = {
    input: options.inputAsTyped ?? options.input,
    baseUrl: options.baseUrl,
    seed,
    cases,
    flags: options.replayFlags ?? [],
    plugins,
  };
  const records = findings.all();
  const report: CheckReport = {
    seed,
    baseUrl: options.baseUrl,
    document: replay.input,
    operations: states.size,
    requests,
    durationMs: Date.now() - started,
    timings: timings.summary(),
    findings: records.map((found) => findingReport(found, replay)),
    byOperation: tallies.summaries([...states.keys()]),
    warnings: tallies.warnings([...states.values()].map((state) => state.spec)),
    notes: [...new Set(notes)],
  };
  const statistics: RunStatistics = {
    statusClasses: statuses.entries(),
    skipped,
    unbreakable,
    occurrences: records.map((found) => found.occurrences),
    origins: records.map((found) => ({
      stream: found.origin.stream.name,
      index: found.origin.index,
      path: found.path,
    })),
  };
  return { report, statistics, operations: [...states.keys()] };
}

/** Runs the checker (see CheckOptions) and returns its report, the same fields as --report-json writes. */
export async function runCheck(options: CheckOptions): Promise<CheckReport> {
  return (await runCheckDetailed(options)).report;
}
