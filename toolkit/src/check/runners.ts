import type { Arbitrary } from 'fast-check';
import type { PreparedRequest } from './auth.js';
import { buildRequest, invalidity, type GeneratedRequest, type OperationPlan, type OutgoingRequest } from './cases.js';
import type { OperationSpec, SecuritySchemeSpec } from './document.js';
import { DrawStream, streamSeed, type FixedValues } from './draws.js';
import type { EdgeRequest } from './edges.js';
import { invalidRequest } from './invalid.js';
import { declaredResponse, type Intent, type Verdict } from './judge.js';
import { isJsonType } from './media.js';
import type { PluginStreamName } from './plugin.js';
import type { Outcome } from './requests.js';
import type { Schemas } from './schemas.js';
import { followUps, type CreationContext } from './sequences.js';
import { withChange, wrongCredentialChanges } from './wrong-credentials.js';

/**
 * What the checker does with one case of an operation, by the stream it comes from: send an edge
 * request (edges.ts) or a generated one as a valid request; break one constraint of it and send
 * that; send it without credentials, or with a wrong credential (wrong-credentials.ts); or send it as
 * the creation of an object, then read, change and delete that object.
 */

/** One request sent and its judgement. */
export interface Exchange {
  readonly operation: OperationSpec;
  readonly request: PreparedRequest;
  readonly outcome: Outcome;
  readonly verdicts: readonly Verdict[];
  /** Why the request is what it is: invalid or without credentials on purpose, or what came before it in a sequence. */
  readonly context: string | undefined;
  /** The constraint it breaks, for an invalid request. */
  readonly constraint?: string;
}

/**
 * The exchanges of the generated case at `index` of its stream, or why it was not sent: `skipped`
 * (not valid per the document after all, or not sendable), `unbreakable` (no constraint of it to
 * break). `prefer` names the constraint an invalid case breaks when it can (shrinking keeps to it).
 */
export type CaseResult = Exchange[] | 'skipped' | 'unbreakable';
export type CaseRunner<T> = (value: T, index: number, prefer?: string) => Promise<CaseResult>;

export type StreamName =
  'edge' | 'valid' | 'invalid' | 'no-credentials' | 'wrong-credentials' | 'sequence' | PluginStreamName;

export interface Stream {
  readonly name: StreamName;
  readonly count: number;
  /** Drawn by fast-check from the run's seed, or the same in every run (the edges). */
  readonly draws: DrawStream<unknown> | FixedValues<unknown>;
  readonly run: CaseRunner<unknown>;
}

export interface OperationState {
  readonly spec: OperationSpec;
  readonly plan: OperationPlan;
  readonly valid: Arbitrary<GeneratedRequest>;
  readonly streams: Stream[];
  /** Valid requests generated but not sent: not valid per the document after all; not sendable. */
  notValid: number;
  notSendable: number;
}

export interface RunnerContext {
  readonly document: object;
  readonly schemas: Schemas;
  readonly baseUrl: string;
  readonly seed: number;
  /** The operations checked: a sequence follows up on these only. */
  readonly operations: readonly OperationSpec[];
  readonly states: ReadonlyMap<string, OperationState>;
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeSpec>>;
  /** Keeps a note for the report (once). */
  readonly note: (text: string) => void;
  /** The request with the run's credentials added (`--header`, `--auth`). */
  readonly prepare: (operation: OperationSpec, request: OutgoingRequest) => Promise<PreparedRequest>;
  /** Sends a prepared request as it is and judges the response. */
  readonly send: (
    operation: OperationSpec,
    request: PreparedRequest,
    intent: Intent,
    context?: string,
  ) => Promise<Exchange>;
  /** Sends one built request (with the run's credentials, or without) and judges the response. */
  readonly exchange: (
    operation: OperationSpec,
    request: OutgoingRequest,
    intent: Intent,
    withCredentials: boolean,
    context?: string,
    expect?: unknown,
  ) => Promise<Exchange>;
}

const preview = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
};

export class CaseRunners {
  /** The follow-up draws of sequences, by creator and target: the target's valid values at the sequence's index. */
  private readonly followDraws = new Map<string, DrawStream<GeneratedRequest>>();

  constructor(private readonly context: RunnerContext) {}

  /** A valid request built, or why the generated one is not sent. */
  private validRequest(
    plan: OperationPlan,
    generated: GeneratedRequest,
  ): OutgoingRequest | 'not-valid' | 'not-sendable' {
    if (invalidity(plan, generated, this.context.schemas) !== undefined) return 'not-valid';
    const built = buildRequest(plan, generated, this.context.baseUrl);
    return typeof built === 'string' ? 'not-sendable' : built;
  }

  /** An edge request, built and checked against the document beforehand (edges.ts), sent as a valid one. */
  edge(state: OperationState): CaseRunner<EdgeRequest> {
    return async (edge) => {
      const request = buildRequest(state.plan, edge.generated, this.context.baseUrl);
      if (typeof request === 'string') return 'skipped';
      const sent = await this.context.exchange(
        state.spec,
        request,
        { kind: 'valid' },
        true,
        `a request at an edge of the schemas: ${edge.label}`,
      );
      return sent.outcome.kind === 'unsendable' ? 'skipped' : [sent];
    };
  }

  valid(state: OperationState): CaseRunner<GeneratedRequest> {
    return async (generated) => {
      const request = this.validRequest(state.plan, generated);
      if (request === 'not-valid') state.notValid += 1;
      if (request === 'not-sendable') state.notSendable += 1;
      if (typeof request === 'string') return 'skipped';
      const sent = await this.context.exchange(state.spec, request, { kind: 'valid' }, true);
      return sent.outcome.kind === 'unsendable' ? 'skipped' : [sent];
    };
  }

  invalid(state: OperationState): CaseRunner<GeneratedRequest> {
    return async (generated, index, prefer) => {
      const { document, schemas, baseUrl } = this.context;
      if (invalidity(state.plan, generated, schemas) !== undefined) return 'skipped';
      // Case i breaks the i-th constraint the request offers (wrapping around): over the cases of a
      // run, each constraint of an operation is broken in turn rather than by chance.
      const broken = invalidRequest(document, state.plan, generated, index, schemas, prefer);
      if (broken === undefined) return 'unbreakable';
      const built = buildRequest(state.plan, broken.generated, baseUrl);
      if (typeof built === 'string') return 'skipped';
      const request = broken.rewrite === undefined ? built : broken.rewrite(built);
      const intent: Intent = {
        kind: 'invalid',
        constraint: broken.constraint,
        description: broken.description,
        ...(broken.parameter === undefined ? {} : { parameter: broken.parameter }),
      };
      const sent = await this.context.exchange(
        state.spec,
        request,
        intent,
        true,
        `the request was invalid on purpose: ${broken.description}`,
      );
      return sent.outcome.kind === 'unsendable' ? 'skipped' : [{ ...sent, constraint: broken.constraint }];
    };
  }

  withoutCredentials(state: OperationState): CaseRunner<GeneratedRequest> {
    return async (generated) => {
      const request = this.validRequest(state.plan, generated);
      if (typeof request === 'string') return 'skipped';
      const sent = await this.context.exchange(
        state.spec,
        request,
        { kind: 'no-credentials' },
        false,
        'the request was sent without credentials on purpose',
      );
      return sent.outcome.kind === 'unsendable' ? 'skipped' : [sent];
    };
  }

  /**
   * Sends the generated request with the run's credentials, one of them made wrong: case i makes
   * the i-th change the request offers (wrapping around), so that over the cases of a run each
   * scheme's credential is made wrong in each way in turn.
   */
  wrongCredentials(state: OperationState): CaseRunner<GeneratedRequest> {
    return async (generated, index) => {
      const { spec } = state;
      const request = this.validRequest(state.plan, generated);
      if (typeof request === 'string') return 'skipped';
      const prepared = await this.context.prepare(spec, request);
      const changes = wrongCredentialChanges(request, prepared.sent, spec.security, this.context.securitySchemes);
      const change = changes[index % Math.max(1, changes.length)];
      if (change === undefined) {
        const schemes = [...new Set(spec.security.flatMap((alternative) => Object.keys(alternative)))];
        this.context.note(
          `${spec.pointer}: operation ${spec.key}: no request with a wrong credential sent: the credentials given (--header, --auth) carry none for ${schemes.join(', ')}, or another security alternative would still let the request through`,
        );
        return [];
      }
      const sent = await this.context.send(
        spec,
        withChange(prepared, change),
        { kind: 'wrong-credentials', scheme: change.scheme, change: change.change },
        `the ${change.scheme} credential was made wrong on purpose: ${change.change}`,
      );
      return sent.outcome.kind === 'unsendable' ? 'skipped' : [sent];
    };
  }

  private followDraw(creator: OperationSpec, target: OperationState, index: number): GeneratedRequest {
    const key = `${creator.key}>${target.spec.key}`;
    let draws = this.followDraws.get(key);
    if (draws === undefined) {
      draws = new DrawStream(target.valid, streamSeed(this.context.seed, key, 'follow'));
      this.followDraws.set(key, draws);
    }
    return draws.at(index);
  }

  /** Creates with the generated request; on a 2xx, follows up on what was created (sequences.ts): reads, changes, deletes. */
  sequence(state: OperationState): CaseRunner<GeneratedRequest> {
    return async (generated, index) => {
      const { spec } = state;
      const request = this.validRequest(state.plan, generated);
      if (typeof request === 'string') return 'skipped';
      const created = await this.context.exchange(spec, request, { kind: 'valid' }, true);
      if (created.outcome.kind === 'unsendable') return 'skipped';
      const exchanges = [created];
      if (created.outcome.kind !== 'response') return exchanges;
      const { response: received } = created.outcome;
      const response = declaredResponse(spec, received.status);
      if (received.status < 200 || received.status >= 300 || response === undefined) return exchanges;
      let responseBody: unknown;
      if (isJsonType(received.headers['content-type'] ?? '')) {
        try {
          responseBody = JSON.parse(received.body);
        } catch {
          responseBody = undefined;
        }
      }
      const parametersIn = (location: string): Record<string, unknown> =>
        Object.fromEntries(
          spec.parameters.flatMap((parameter, i) =>
            parameter.in === location && generated.parameters[i] !== undefined
              ? [[parameter.name, generated.parameters[i]]]
              : [],
          ),
        );
      const creation: CreationContext = {
        url: request.url,
        method: request.method,
        status: received.status,
        requestHeaders: Object.fromEntries(
          Object.entries(created.request.sent.headers).map(([name, value]) => [name.toLowerCase(), value]),
        ),
        requestParameters: { path: parametersIn('path'), query: parametersIn('query') },
        requestBody: generated.body?.value,
        responseHeaders: received.headers,
        responseBody,
      };
      const createdText = `${spec.key}'s ${received.status} response ${preview(responseBody ?? received.body)}`;
      let readDone = false;
      let deleted = false;
      for (const followUp of followUps(this.context.operations, spec, response, creation)) {
        const target = this.context.states.get(followUp.target.key);
        if (target === undefined) continue;
        const base = this.followDraw(spec, target, index);
        const values = [...base.parameters];
        for (const given of followUp.parameters) {
          const at = target.spec.parameters.findIndex(
            (parameter) => parameter.name === given.name && (given.in === undefined || parameter.in === given.in),
          );
          if (at >= 0) values[at] = given.value;
        }
        const body =
          followUp.body !== undefined && target.plan.bodyMedia.length > 0
            ? { media: 0, value: followUp.body.value }
            : base.body;
        const built = buildRequest(target.plan, { parameters: values, body }, this.context.baseUrl);
        if (typeof built === 'string') continue;
        // The first read before any delete must find what was just created.
        const firstRead = target.spec.method === 'GET' && !readDone && !deleted;
        if (firstRead) readDone = true;
        const intent: Intent = firstRead ? { kind: 'read-after-create', created: createdText } : { kind: 'valid' };
        const sent = await this.context.exchange(
          target.spec,
          built,
          intent,
          true,
          `after ${createdText}, by ${followUp.via}`,
        );
        if (sent.outcome.kind !== 'unsendable') exchanges.push(sent);
        if (target.spec.method === 'DELETE') deleted = true;
      }
      return exchanges;
    };
  }
}
