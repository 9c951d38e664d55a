import type { Arbitrary } from 'fast-check';
import type { OutgoingRequest } from './cases.js';
import type { OperationSpec } from './document.js';
import type { Outcome } from './requests.js';

/**
 * Plug-ins: what an API's own tests add to the checker, beside `--auth` (auth.ts). The checker
 * keeps what is generic (generating requests from the document, sending them, judging the responses
 * against it, shrinking a failure, replaying a run by its seed); a plug-in adds what only its API
 * knows, through three hooks, each optional:
 *
 * - `streams(operation)`: more cases for an operation. A stream is a fast-check arbitrary of the
 *   plug-in's own values and a `build` that turns one into a request when it is sent (so that it
 *   can use what earlier requests left: an id, a used idempotency key). Its values are generated like
 *   the checker's own, from the run's seed, the operation and the stream's name.
 * - `serialize(request)` and `around(request, send)`: requests with the same serialization key
 *   (an account the plug-in runs one request at a time, say) are sent one case after another;
 *   `around` runs around each request of a case, in that turn: to read the API's state before
 *   and compare after. It calls `send` once and returns its own verdicts.
 * - `judge(exchange)`: more checks on every response (the checker's own requests and the streams').
 *
 * A verdict names its kind (`<plug-in name>:<kind>`, say `payments:error-shape`); it becomes a
 * finding like the checker's own: counted once per kind, operation, status and detail, shrunk by
 * replaying its case with fast-check, reported with its request, curl line and replay command.
 *
 * ```ts
 * const plugin: CheckPlugin = {
 *   name: 'shop',
 *   judge: (exchange) =>
 *     exchange.outcome.kind === 'response' && exchange.outcome.response.headers['x-request-id'] === undefined
 *       ? [{ kind: 'shop:request-id', detail: '', message: 'no X-Request-Id header' }]
 *       : [],
 * };
 * await runCheck({ input: 'openapi.yaml', baseUrl, plugins: [plugin] });
 * ```
 */

/** A finding kind a plug-in names: its own name, a colon, the kind. */
export type PluginKind = `${string}:${string}`;

/** One problem a plug-in sees in a response. */
export interface PluginVerdict {
  readonly kind: PluginKind;
  /** What broke, the same every time the same thing breaks (each distinct detail is one finding). */
  readonly detail: string;
  readonly message: string;
}

/** The name of a plug-in stream in reports (`requestKind`): the plug-in's name, a colon, the stream's. */
export type PluginStreamName = `${string}:${string}`;

/** Which case a request belongs to. */
export interface CaseContext {
  readonly operation: OperationSpec;
  /** `edge`, `valid`, `invalid`, `no-credentials`, `wrong-credentials`, `sequence`, or a plug-in stream's name. */
  readonly stream: string;
  /** The case's index in its stream. */
  readonly index: number;
  /** The serialization key the plug-ins gave the case (`serialize`); undefined: none. */
  readonly key: string | undefined;
}

/** A request a plug-in stream built, and what it expects of the response. */
export interface PluginCase {
  readonly request: OutgoingRequest;
  /** Whether the run's credentials (`--header`, `--auth`) are added (default false: the request is complete). */
  readonly withCredentials?: boolean;
  /**
   * Whether the checker judges the response against the document as well (declared status,
   * Content-Type, body and headers); default false: only a 5xx, a hang and a failed connection.
   * The plug-in's `judge` sees every response either way.
   */
  readonly judgeAgainstDocument?: boolean;
  /** Handed back to `judge` and `around` with the response: what the plug-in expects of it. */
  readonly expect?: unknown;
  /** Why the request is what it is, shown beside findings. */
  readonly context?: string;
}

export interface PluginStream<T = unknown> {
  /** The stream's name, unique within its plug-in. */
  readonly name: string;
  /** Cases generated for the operation. */
  readonly count: number;
  readonly arbitrary: Arbitrary<T>;
  /** The request of a generated value, built in its case's turn; undefined: not sent (counted as skipped). */
  build(value: T, context: CaseContext): PluginCase | undefined | Promise<PluginCase | undefined>;
}

/** One request sent and its response, as plug-ins see it. */
export interface PluginExchange {
  readonly case: CaseContext;
  /** The operation of this request (a sequence's follow-ups are other operations than its case's). */
  readonly operation: OperationSpec;
  /** As sent, credentials included. */
  readonly request: OutgoingRequest;
  readonly outcome: Outcome;
  /** The `expect` of a plug-in case; undefined for the checker's own requests. */
  readonly expect: unknown;
  /** What the request was meant to be: the checker's own kinds, or `plugin` for a plug-in case. */
  readonly intent: 'valid' | 'invalid' | 'no-credentials' | 'wrong-credentials' | 'read-after-create' | 'plugin';
}

export interface CheckPlugin {
  /** Names its kinds and streams; letters, digits and dashes. */
  readonly name: string;
  streams?(operation: OperationSpec): readonly PluginStream<unknown>[];
  /** The serialization key of a case: cases with the same key run one after another. */
  serialize?(context: Omit<CaseContext, 'key'>): string | undefined;
  /** Around each request of a case, in its key's turn: must call `send` once; returns more verdicts. */
  around?(
    context: CaseContext,
    request: OutgoingRequest,
    send: () => Promise<PluginExchange>,
  ): Promise<readonly PluginVerdict[]>;
  judge?(exchange: PluginExchange): readonly PluginVerdict[] | Promise<readonly PluginVerdict[]>;
  /** The command that replays a finding of this plug-in's streams (default: the checker's `npm run check` line, which runs no plug-in). */
  replay?(finding: {
    readonly seed: number;
    readonly operation: string;
    readonly stream: string;
    readonly index: number;
  }): string;
}

/** Runs the cases of each key one at a time, the first come first served; cases without a key at once. */
export class Turns {
  private readonly tails = new Map<string, Promise<void>>();

  async take<T>(key: string | undefined, run: () => Promise<T>): Promise<T> {
    if (key === undefined) return run();
    const before = this.tails.get(key) ?? Promise.resolve();
    let release: () => void = () => {};
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await run();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/** What a plug-in's name may be: it prefixes kinds and stream names. */
export const PLUGIN_NAME = /^[a-z][a-z0-9-]*$/;
