import fc from 'fast-check';
import { insideBounds, outsideBounds, shapeTypes, wrongTypes } from 'contract-first/check';
import { clientWireText } from 'contract-first/check';
import { flatten } from 'contract-first/check';
import { valuesOf, type Channel } from 'contract-first/check';
import { loadDocument, type JsonSchema, type OperationSpec, type ParameterSpec } from './document.js';

// Fuzz cases built from the document. Each case is one request: a valid
// request of one operation (parameters and body generated from its schemas, or the document's
// examples), with at most one thing made wrong, and the outcomes the service allows for it:
// - values just inside and just outside every bound the document declares (minLength,
//   maxLength, minimum, maximum, enum, pattern, minItems), in every parameter and body field;
// - values of the wrong type, missing required fields and headers, headers sent twice;
// - odd encodings: bytes that are not UTF-8, percent-encoding, unicode, NUL, charsets, gzip;
// - huge and deeply nested bodies, many parameters, bad cursors, signatures one byte off,
//   forged, expired and under-scoped tokens, unknown paths and methods, reused keys.
// A case is plain data (fast-check prints it when a property fails); ids, cursors, tokens and
// signatures are resolved when the case is sent (fuzz-plugin.ts).

export interface Outcome {
  readonly status: number;
  /** The error type; absent: any (or a success). */
  readonly type?: string;
}

export type IdRef =
  | { readonly ref: 'own' | 'foreign' | 'unknown' }
  /** The lane's own id with one character percent-encoded: the same resource. */
  | { readonly ref: 'own-encoded' }
  | { readonly raw: string };

export type CursorMode =
  'valid' | 'tampered' | 'truncated' | 'other-list' | 'other-limit' | 'other-filters' | 'garbage';

export type QueryValue = string | { readonly cursor: CursorMode };

export type AuthMode =
  | 'valid'
  | 'none'
  | 'garbage'
  | 'tampered'
  | 'alg-none'
  | 'foreign-key'
  | 'expired'
  | 'wrong-audience'
  | 'basic-instead'
  | 'duplicate-valid-first'
  | 'duplicate-garbage-first'
  | 'missing-scope';

export type TokenAuth =
  'basic' | 'basic-wrong-secret' | 'basic-unknown-client' | 'basic-garbage' | 'post' | 'none' | 'both';

export type KeyMode = 'fresh' | 'missing' | 'duplicate' | 'replay' | 'reuse-other-request' | { readonly raw: string };

export type TimestampFormat =
  | 'leading-zeros'
  | 'decimal'
  | 'plus-sign'
  | 'spaces'
  | 'hex'
  | 'exponent'
  | 'negative'
  | 'sixteen-digits'
  | 'empty'
  | 'milliseconds'
  | 'letters';

export type TimestampMode =
  'now' | 'missing' | 'duplicate' | { readonly offset: number } | { readonly format: TimestampFormat };

export type SignatureMode =
  | 'valid'
  | 'missing'
  | 'empty'
  | 'duplicate'
  | 'byte-off'
  | 'other-key'
  | 'other-path'
  | 'with-query'
  | 'lowercase-method'
  | 'other-timestamp'
  | 'unpadded'
  | { readonly raw: string };

export type BodyValue =
  | { readonly json: unknown }
  /** Text sent as UTF-8. */
  | { readonly text: string }
  /** Exact bytes (hex), for bytes that are not UTF-8. */
  | { readonly hex: string }
  | { readonly form: ReadonlyArray<readonly [string, string]> }
  /** A body made when sent (too big to print): `bytes` long. */
  | {
      readonly generated:
        | 'oversize-json'
        | 'oversize-form'
        | 'near-limit-json'
        | 'deep-array'
        | 'deep-object'
        | 'deep-field'
        | 'many-properties'
        | 'many-form-fields';
      readonly size: number;
    }
  | { readonly gzipJson: unknown };

export interface BodyPlan {
  readonly value: BodyValue;
  /** null: no Content-Type header. */
  readonly contentType: string | null;
  readonly contentEncoding?: string;
}

export interface FuzzCase {
  readonly operationId: string;
  readonly family: string;
  /** What was made wrong, for people. */
  readonly note: string;
  readonly method: string;
  /** The document's path template. */
  readonly path: string;
  readonly id?: IdRef;
  /** Replaces the whole path (unknown-path probes); percent-encoded as sent. */
  readonly rawPath?: string;
  readonly query: ReadonlyArray<readonly [string, QueryValue]>;
  /** Extra headers, as latin1 text (bytes 0x80-0xff allowed). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly auth: AuthMode;
  readonly tokenAuth?: TokenAuth;
  readonly write?: { readonly key: KeyMode; readonly timestamp: TimestampMode; readonly signature: SignatureMode };
  readonly body?: BodyPlan;
  readonly expect: readonly Outcome[];
}

const doc = loadDocument();

export const OPERATIONS: readonly OperationSpec[] = doc.operations;

const ok: Outcome = { status: 200 };
const invalid: Outcome = { status: 400, type: 'InvalidRequest' };
const notFound: Outcome = { status: 404, type: 'NotFound' };
const unauthorized: Outcome = { status: 401, type: 'Unauthorized' };
const forbidden: Outcome = { status: 403, type: 'Unauthorized' };
const badSignature: Outcome = { status: 401, type: 'InvalidSignature' };
const missingSignature: Outcome = { status: 401, type: 'MissingSignature' };
const missingKey: Outcome = { status: 400, type: 'MissingIdempotencyKey' };
const rateLimited: Outcome = { status: 429, type: 'InvalidRequest' };
const tooLarge: Outcome = { status: 413, type: 'InvalidRequest' };
const unsupported: Outcome = { status: 415, type: 'InvalidRequest' };
const methodNotAllowed: Outcome = { status: 405, type: 'InvalidRequest' };

type IdKind = 'own' | 'foreign' | 'unknown' | 'none';

function idKindOf(id: IdRef | undefined): IdKind {
  if (id === undefined) return 'none';
  if ('raw' in id) return 'unknown';
  return id.ref === 'own-encoded' ? 'own' : id.ref;
}

/** What a request with nothing wrong may respond, per operation. */
export function baseline(operationId: string, id: IdKind): Outcome[] {
  const mine = id === 'own' || id === 'none';
  switch (operationId) {
    case 'listBanks':
      return [ok, { status: 304 }];
    case 'listCards':
    case 'listTransfers':
    case 'listTransactions':
      return [ok];
    case 'getCard':
    case 'getTransfer':
    case 'getTransaction':
    case 'setCardLimits':
      return mine ? [ok] : [notFound];
    case 'updateCardLimits':
    case 'cancelTransfer':
      return mine ? [ok, invalid] : [notFound];
    case 'executeTransfer':
      return mine ? [ok, invalid, { status: 400, type: 'InsufficientFunds' }] : [notFound];
    case 'createTransfer':
      return [ok, { status: 400, type: 'InvalidBankAccount' }];
    case 'createToken':
      return [ok, rateLimited];
    default:
      // An operation added to the document later: any success or a plain error response.
      return [ok, invalid, notFound];
  }
}

// ---------------------------------------------------------------------------------------------
// Values from schemas

// Valid values are the toolkit's (contract-first/check's valuesOf), ordinary ones only: a valid
// request of a family must be one the service takes, so no NUL or control characters in text.

/** The schema's JSON types, as the toolkit reads them (an `enum` without `type`: its values' types). */
const typesOf = (schema: JsonSchema): readonly string[] => shapeTypes(flatten(doc.raw, schema));

function isIntegerSchema(schema: JsonSchema): boolean {
  return typesOf(schema).includes('integer') || typesOf(schema).includes('number');
}

/** A valid value of a schema, for a parameter (`text`) or a body (`body`). */
function validValue(schema: JsonSchema, channel: Channel): fc.Arbitrary<unknown> {
  const values = valuesOf(doc.raw, schema, { channel, direction: 'request', ordinary: true });
  if (values === undefined) throw new Error(`the document's schema ${JSON.stringify(schema)} allows no value`);
  return values;
}

// ---------------------------------------------------------------------------------------------
// Requests

function queryParameters(operation: OperationSpec): ParameterSpec[] {
  return operation.parameters.filter((parameter) => parameter.in === 'query');
}

const ID_PREFIX: Record<string, string> = { card: 'crd_', transfer: 'trf_', transaction: 'txn_' };

function unknownId(path: string): fc.Arbitrary<IdRef> {
  const prefix = Object.entries(ID_PREFIX).find(([word]) => path.startsWith(`/v1/${word}`))?.[1] ?? '';
  return fc
    .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 24, maxLength: 24 })
    .map((tail) => ({ raw: `${prefix}${tail}` }));
}

function idFor(operation: OperationSpec): fc.Arbitrary<IdRef | undefined> {
  if (!operation.path.includes('{id}')) return fc.constant(undefined);
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<IdRef>({ ref: 'own' }) },
    { weight: 1, arbitrary: fc.constant<IdRef>({ ref: 'own-encoded' }) },
    { weight: 1, arbitrary: fc.constant<IdRef>({ ref: 'foreign' }) },
    { weight: 1, arbitrary: unknownId(operation.path) },
  );
}

/** Valid values for a random subset of the optional query parameters. */
function validQuery(operation: OperationSpec): fc.Arbitrary<Array<[string, QueryValue]>> {
  const optional = queryParameters(operation).filter((parameter) => parameter.name !== 'cursor');
  if (optional.length === 0) return fc.constant([]);
  return fc
    .subarray(optional, { maxLength: Math.min(3, optional.length) })
    .chain((chosen) =>
      fc.tuple(
        ...chosen.map((parameter) =>
          validValue(parameter.schema, 'text').map((value): [string, QueryValue] => [
            parameter.name,
            clientWireText(value),
          ]),
        ),
      ),
    )
    .map((pairs) => [...pairs]);
}

/** Both bounds of a range filter given, the lower above the upper: rejected with 400. */
function invertedRange(query: ReadonlyArray<readonly [string, QueryValue]>): boolean {
  const value = (name: string): number | undefined => {
    const found = query.find(([key]) => key === name)?.[1];
    return typeof found === 'string' && /^-?\d+$/.test(found) ? Number(found) : undefined;
  };
  for (const [low, high] of [
    ['minAmountCents', 'maxAmountCents'],
    ['fromDate', 'toDate'],
  ] as const) {
    const a = value(low);
    const b = value(high);
    if (a !== undefined && b !== undefined && a > b) return true;
  }
  return false;
}

const SCOPE_SUBSETS = [undefined, 'cards:read', 'transfers:read transfers:write', doc.scopes.join(' ')] as const;

/** A valid body: the document's examples, or one generated from the schema. */
function validBody(operation: OperationSpec): fc.Arbitrary<BodyPlan | undefined> {
  const body = operation.body;
  if (body === undefined) return fc.constant(undefined);
  const contentType = body.contentTypes[0] ?? 'application/json';
  if (contentType === 'application/x-www-form-urlencoded') {
    return fc.constantFrom(...SCOPE_SUBSETS).map((scope) => ({
      value: {
        form: [
          ['grant_type', 'client_credentials'] as const,
          ...(scope !== undefined ? [['scope', scope] as const] : []),
        ],
      },
      contentType,
    }));
  }
  const fromSchema = validValue(body.schema, 'body');
  const arbitrary =
    body.examples.length > 0
      ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...body.examples) }, { weight: 1, arbitrary: fromSchema })
      : fromSchema;
  return arbitrary.map((json) => ({ value: { json }, contentType }));
}

interface Base {
  readonly operation: OperationSpec;
  readonly id: IdRef | undefined;
  readonly query: Array<[string, QueryValue]>;
  readonly body: BodyPlan | undefined;
}

function baseRequest(operation: OperationSpec): fc.Arbitrary<Base> {
  return fc
    .record({ id: idFor(operation), query: validQuery(operation), body: validBody(operation) })
    .map(({ id, query, body }) => ({ operation, id, query, body }));
}

/**
 * The case: `base` with `changes` applied. A success the case expects becomes 400 when the final
 * query holds an inverted range, which is checked after the schema and the write
 * headers, so every earlier error response stays as it is.
 */
function caseOf(
  base: Base,
  family: string,
  note: string,
  expect: readonly Outcome[],
  changes: Partial<FuzzCase> = {},
): FuzzCase {
  const { operation } = base;
  const finalQuery = changes.query ?? base.query;
  if (invertedRange(finalQuery) && expect.some((outcome) => outcome.status === 200)) {
    expect = [...expect.filter((outcome) => outcome.status !== 200 && outcome.status !== 304), invalid];
  }
  const write = operation.write
    ? { key: 'fresh' as KeyMode, timestamp: 'now' as TimestampMode, signature: 'valid' as SignatureMode }
    : undefined;
  return {
    operationId: operation.operationId,
    family,
    note,
    method: operation.method,
    path: operation.path,
    ...(base.id !== undefined ? { id: base.id } : {}),
    query: base.query,
    headers: [],
    auth: 'valid',
    ...(operation.operationId === 'createToken' ? { tokenAuth: 'basic' as TokenAuth } : {}),
    ...(write !== undefined ? { write } : {}),
    ...(base.body !== undefined ? { body: base.body } : {}),
    expect,
    ...changes,
  };
}

function expectedFor(base: Base): Outcome[] {
  if (invertedRange(base.query)) return [invalid];
  return baseline(base.operation.operationId, idKindOf(base.id));
}

// ---- families ------------------------------------------------------------------------------

function validFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> {
  return baseRequest(operation).map((base) => caseOf(base, 'valid', 'nothing wrong', expectedFor(base)));
}

interface Slot {
  readonly where: 'path' | 'query' | 'header' | 'body';
  readonly name: string;
  readonly schema: JsonSchema;
  readonly required: boolean;
  /** For a oneOf body: the branch that declares the field. */
  readonly branch?: number;
}

/** Every parameter and body field of the operation that has a schema of its own. */
function slotsOf(operation: OperationSpec): Slot[] {
  const slots: Slot[] = [];
  for (const parameter of operation.parameters) {
    // The write headers have families of their own (their checks run before the schema's).
    if (parameter.in === 'header' && /^x-partner-/i.test(parameter.name)) continue;
    // The document declares no cookie parameters, and the proof sends no cookies.
    if (parameter.in === 'cookie') continue;
    slots.push({ where: parameter.in, name: parameter.name, schema: parameter.schema, required: parameter.required });
  }
  const schema = operation.body?.schema;
  const branches = schema?.oneOf ?? (schema !== undefined ? [schema] : []);
  for (const [index, branch] of branches.entries()) {
    for (const [name, property] of Object.entries(branch.properties ?? {})) {
      slots.push({
        where: 'body',
        name,
        schema: property,
        required: (branch.required ?? []).includes(name),
        ...(schema?.oneOf !== undefined ? { branch: index } : {}),
      });
    }
  }
  return slots;
}

function bodyJson(base: Base): Record<string, unknown> {
  const value = base.body?.value;
  return value !== undefined &&
    'json' in value &&
    typeof value.json === 'object' &&
    value.json !== null &&
    !Array.isArray(value.json)
    ? { ...(value.json as Record<string, unknown>) }
    : {};
}

/** The body of `base` with one field set; for oneOf bodies, in the branch that declares the field. */
function withField(
  base: Base,
  name: string,
  value: unknown,
  remove = false,
  branchIndex?: number,
): BodyPlan | undefined {
  const plan = base.body;
  if (plan === undefined) return undefined;
  if ('form' in plan.value) {
    const form = plan.value.form.filter(([key]) => key !== name);
    return { ...plan, value: { form: remove ? form : [...form, [name, String(value)] as const] } };
  }
  const schema = base.operation.body?.schema;
  let json = bodyJson(base);
  const branch =
    branchIndex !== undefined
      ? schema?.oneOf?.[branchIndex]
      : schema?.oneOf?.find((candidate) => candidate.properties?.[name] !== undefined);
  const member = (candidate: JsonSchema): boolean =>
    Object.keys(json).every((key) => candidate.properties?.[key] !== undefined) &&
    (candidate.required ?? []).every((key) => key in json);
  if (branch !== undefined && !member(branch)) {
    // Start from a valid body of that branch: its required fields at their minimum.
    json = Object.fromEntries((branch.required ?? []).map((key) => [key, branch.properties?.[key]?.minimum ?? 0]));
  }
  if (remove) delete json[name];
  else json[name] = value;
  return { ...plan, value: { json } };
}

function withQuery(base: Base, name: string, value: QueryValue | undefined): Array<[string, QueryValue]> {
  const query = base.query.filter(([key]) => key !== name);
  return value === undefined ? query : [...query, [name, value]];
}

/** `base` with the id and query a change sets: what the expectations are computed from. */
function rebase(base: Base, changes: Partial<FuzzCase>): Base {
  return {
    ...base,
    ...(changes.id !== undefined ? { id: changes.id } : {}),
    ...(changes.query !== undefined
      ? { query: changes.query.map(([name, value]): [string, QueryValue] => [name, value]) }
      : {}),
  };
}

/** The outcome of a slot's value that the schema accepts. */
function insideOutcome(base: Base, slot: Slot): readonly Outcome[] {
  if (slot.where === 'query' && slot.name === 'cursor') return [invalid]; // a made-up cursor fails its MAC
  if (slot.where === 'header' && slot.name.toLowerCase() === 'if-none-match') return [ok, { status: 304 }];
  if (base.operation.operationId === 'createToken' && slot.where === 'body') {
    if (slot.name === 'scope') return [ok, invalid, rateLimited]; // a subset is granted, anything else invalid_scope
    // Not a client; failures are counted per client id, known or not (429 past 10 a minute).
    if (slot.name === 'client_id') return [unauthorized, rateLimited];
    if (slot.name === 'client_secret') return [unauthorized, rateLimited];
  }
  return expectedFor(base);
}

function tokenBodyChanges(slot: Slot): Partial<FuzzCase> {
  // client_id / client_secret in the body mean client_secret_post: no Basic header then.
  return slot.where === 'body' && (slot.name === 'client_id' || slot.name === 'client_secret')
    ? { tokenAuth: 'post' }
    : {};
}

function applySlot(base: Base, slot: Slot, value: unknown): Partial<FuzzCase> {
  switch (slot.where) {
    case 'path':
      return { id: { raw: clientWireText(value) } };
    case 'query':
      return { query: withQuery(base, slot.name, clientWireText(value)) };
    case 'header': {
      const text = String(value);
      if (slot.name.toLowerCase() === 'idempotency-key')
        return { write: { key: { raw: text }, timestamp: 'now', signature: 'valid' } };
      return { headers: [[slot.name, text]] };
    }
    case 'body': {
      const body = withField(base, slot.name, value, false, slot.branch);
      return body === undefined ? {} : { body };
    }
  }
}

function boundaryFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> | undefined {
  const slots = slotsOf(operation).filter(
    (slot) => insideBounds(doc.raw, slot.schema).length + outsideBounds(doc.raw, slot.schema).length > 0,
  );
  if (slots.length === 0) return undefined;
  return fc
    .tuple(baseRequest(operation), fc.constantFrom(...slots), fc.boolean(), fc.nat())
    .map(([base, slot, inside, pick]) => {
      const choices = inside ? insideBounds(doc.raw, slot.schema) : outsideBounds(doc.raw, slot.schema);
      const fallback = inside ? outsideBounds(doc.raw, slot.schema) : insideBounds(doc.raw, slot.schema);
      const list = choices.length > 0 ? choices : fallback;
      const isInside = choices.length > 0 ? inside : !inside;
      // Header values travel as latin1 bytes: only printable ASCII keeps its length on the wire.
      const usable = slot.where === 'header' ? list.filter((item) => /^[\x20-\x7e]*$/.test(String(item.value))) : list;
      const boundary = usable[pick % usable.length] ?? { label: 'none', value: '' };
      const changes = applySlot(base, slot, boundary.value);
      // An empty path segment no longer matches the route: 404 (or 405 where a shorter path exists).
      const emptyPath = slot.where === 'path' && String(boundary.value) === '';
      let expect: readonly Outcome[] = isInside ? insideOutcome(rebase(base, changes), slot) : [invalid];
      if (emptyPath)
        expect = operation.path.endsWith('{id}') ? [notFound, methodNotAllowed, ok] : [notFound, methodNotAllowed];
      const tokenRequest = operation.operationId === 'createToken';
      if (!isInside && tokenRequest && slot.name === 'grant_type') expect = [invalid];
      const note = `${slot.where} ${slot.name}: ${boundary.label} (${isInside ? 'inside' : 'outside'} the bound)`;
      return caseOf(base, isInside ? 'bound-inside' : 'bound-outside', note, expect, {
        ...changes,
        ...(tokenRequest ? tokenBodyChanges(slot) : {}),
      });
    });
}

function wrongTypeFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> | undefined {
  const slots = slotsOf(operation).filter((slot) =>
    slot.where === 'body'
      ? operation.body?.contentTypes[0] !== 'application/x-www-form-urlencoded'
      : isIntegerSchema(slot.schema),
  );
  const wholeBody =
    operation.body !== undefined && operation.body.contentTypes[0] !== 'application/x-www-form-urlencoded';
  if (slots.length === 0 && !wholeBody) return undefined;
  const bodies: Array<[string, string]> = [
    ['an array', '[]'],
    ['an array of the body', '[{}]'],
    ['a string', '"body"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
  ];
  const perSlot =
    slots.length === 0
      ? undefined
      : fc.tuple(baseRequest(operation), fc.constantFrom(...slots), fc.nat()).map(([base, slot, pick]) => {
          const wrong = wrongTypes(doc.raw, slot.schema);
          const choice = wrong[pick % wrong.length] ?? { label: 'a word', value: 'twelve', coercible: false };
          const onWire = slot.where !== 'body';
          // On the wire (query, path) every value is text: only text that is not an integer is wrong.
          const value = onWire
            ? choice.value === null
              ? 'null'
              : typeof choice.value === 'object'
                ? JSON.stringify(choice.value)
                : String(choice.value)
            : choice.value;
          const number = /^-?\d+$/.test(String(value)) ? Number(value) : undefined;
          const stillValid =
            onWire &&
            number !== undefined &&
            number >= (slot.schema.minimum ?? -Infinity) &&
            number <= (slot.schema.maximum ?? Infinity);
          const changes = applySlot(base, slot, value);
          const expect = stillValid ? insideOutcome(rebase(base, changes), slot) : [invalid];
          // Ajv would coerce some of these (a number-like string, a boolean, null): the service must not.
          const note = `${slot.where} ${slot.name}: ${choice.label} ${JSON.stringify(value)}${!onWire && choice.coercible ? ' (coercible)' : ''}`;
          return caseOf(base, 'wrong-type', note, expect, changes);
        });
  const whole = !wholeBody
    ? undefined
    : fc.tuple(baseRequest(operation), fc.constantFrom(...bodies)).map(([base, [label, text]]) =>
        caseOf(base, 'wrong-type', `whole body: ${label}`, [invalid], {
          body: { value: { text }, contentType: operation.body?.contentTypes[0] ?? 'application/json' },
        }),
      );
  const options = [perSlot, whole].filter((arbitrary): arbitrary is fc.Arbitrary<FuzzCase> => arbitrary !== undefined);
  return options.length === 0 ? undefined : fc.oneof(...options);
}

function missingFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> | undefined {
  const options: Array<fc.Arbitrary<FuzzCase>> = [];
  const required = slotsOf(operation).filter((slot) => slot.where === 'body' && slot.required);
  const isToken = operation.operationId === 'createToken';
  if (required.length > 0) {
    options.push(
      fc.tuple(baseRequest(operation), fc.constantFrom(...required)).map(([base, slot]) => {
        const body = withField(base, slot.name, undefined, true, slot.branch);
        return caseOf(base, 'missing', `body ${slot.name} left out`, [invalid], body === undefined ? {} : { body });
      }),
    );
  }
  if (operation.body !== undefined) {
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'missing', 'no body and no Content-Type', [invalid, unsupported], {
          body: { value: { text: '' }, contentType: null },
        }),
      ),
    );
    options.push(
      baseRequest(operation).map((base) => {
        const plan = base.body;
        return caseOf(
          base,
          'missing',
          'body without Content-Type',
          [invalid, unsupported],
          plan === undefined ? {} : { body: { ...plan, contentType: null } },
        );
      }),
    );
  }
  if (operation.authenticated)
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'missing', 'no Authorization header', [unauthorized], { auth: 'none' }),
      ),
    );
  if (isToken)
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'missing', 'no client authentication', [unauthorized], { tokenAuth: 'none' }),
      ),
    );
  if (operation.write) {
    const writes: Array<[string, FuzzCase['write'], Outcome]> = [
      ['no Idempotency-Key', { key: 'missing', timestamp: 'now', signature: 'valid' }, missingKey],
      ['no X-Partner-Signature', { key: 'fresh', timestamp: 'now', signature: 'missing' }, missingSignature],
      ['no X-Partner-Request-Timestamp', { key: 'fresh', timestamp: 'missing', signature: 'valid' }, invalid],
    ];
    options.push(
      fc
        .tuple(baseRequest(operation), fc.constantFrom(...writes))
        .map(([base, [note, write, outcome]]) =>
          caseOf(base, 'missing', note, [outcome], write === undefined ? {} : { write }),
        ),
    );
  }
  if (operation.path.includes('{id}')) {
    // `/v1/card/` is the collection with a trailing slash, which routing tolerates (server/app.ts).
    const emptyIdOutcomes = operation.path.endsWith('{id}')
      ? [notFound, methodNotAllowed, ok]
      : [notFound, methodNotAllowed];
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'missing', 'empty id segment', emptyIdOutcomes, { id: { raw: '' } }),
      ),
    );
  }
  return options.length === 0 ? undefined : fc.oneof(...options);
}

function duplicateFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> {
  const options: Array<fc.Arbitrary<FuzzCase>> = [];
  if (operation.write) {
    const writes: Array<[string, NonNullable<FuzzCase['write']>]> = [
      ['Idempotency-Key twice', { key: 'duplicate', timestamp: 'now', signature: 'valid' }],
      ['X-Partner-Signature twice', { key: 'fresh', timestamp: 'now', signature: 'duplicate' }],
      ['X-Partner-Request-Timestamp twice', { key: 'fresh', timestamp: 'duplicate', signature: 'valid' }],
    ];
    options.push(
      fc
        .tuple(baseRequest(operation), fc.constantFrom(...writes))
        .map(([base, [note, write]]) => caseOf(base, 'duplicate-header', note, [invalid], { write })),
    );
  }
  if (operation.authenticated) {
    // Node keeps the first Authorization header and drops the others.
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'duplicate-header', 'Authorization twice, valid first', expectedFor(base), {
          auth: 'duplicate-valid-first',
        }),
      ),
    );
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'duplicate-header', 'Authorization twice, garbage first', [unauthorized], {
          auth: 'duplicate-garbage-first',
        }),
      ),
    );
  }
  options.push(
    baseRequest(operation).map((base) =>
      caseOf(base, 'duplicate-header', 'X-Request-Id twice', expectedFor(base), {
        headers: [
          ['X-Request-Id', 'fuzz-1'],
          ['X-Request-Id', 'fuzz-2'],
        ],
      }),
    ),
  );
  if (operation.body !== undefined) {
    options.push(
      baseRequest(operation).map((base) => {
        const plan = base.body;
        const type = plan?.contentType ?? 'application/json';
        return caseOf(base, 'duplicate-header', 'Content-Type twice', [...expectedFor(base), invalid, unsupported], {
          headers: [['Content-Type', type]],
        });
      }),
    );
  }
  const queryParams = queryParameters(operation).filter((parameter) => parameter.name !== 'cursor');
  if (queryParams.length > 0) {
    options.push(
      fc.tuple(baseRequest(operation), fc.constantFrom(...queryParams)).chain(([base, parameter]) =>
        fc.tuple(validValue(parameter.schema, 'text'), validValue(parameter.schema, 'text')).map(([a, b]) =>
          // A list parameter given twice is read as the one comma-separated value (the same
          // records); a single value given twice is ambiguous and rejected.
          caseOf(
            base,
            'duplicate-parameter',
            `query ${parameter.name} twice`,
            typesOf(parameter.schema).includes('array') ? [...expectedFor(base), invalid] : [invalid],
            {
              query: [
                ...base.query.filter(([key]) => key !== parameter.name),
                [parameter.name, clientWireText(a)],
                [parameter.name, clientWireText(b)],
              ],
            },
          ),
        ),
      ),
    );
  }
  return fc.oneof(...options);
}

function encodingFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> {
  const options: Array<fc.Arbitrary<FuzzCase>> = [];
  const textSlots = slotsOf(operation).filter(
    (slot) =>
      typesOf(slot.schema).includes('string') &&
      slot.schema.enum === undefined &&
      slot.schema.pattern === undefined &&
      (slot.where === 'body' || slot.where === 'query') &&
      slot.name !== 'cursor',
  );
  const isForm = operation.body?.contentTypes[0] === 'application/x-www-form-urlencoded';
  const texts: Array<[string, string]> = [
    ['NUL', 'a\u0000b'],
    ['a lone surrogate', '\ud800x'],
    ['right-to-left text', 'مرحبا بالعالم'],
    ['combining marks', 'e\u0301\u0301\u0301'],
    ['zero-width characters', 'a\u200b\u200c\u200d\ufeffb'],
    ['an emoji sequence', '👩‍👩‍👧‍👦'],
    ['control characters', '\t\r\n\u0007\u001b'],
    ['a replacement character', '\ufffd'],
    ['SQL', "x' or 1=1; drop table transfers; --"],
    ['a template', '${process.env}{{7*7}}<script>'],
  ];
  if (textSlots.length > 0) {
    options.push(
      fc
        .tuple(baseRequest(operation), fc.constantFrom(...textSlots), fc.constantFrom(...texts))
        .map(([base, slot, [label, text]]) => {
          const changes = applySlot(base, slot, text);
          // Taken as text, or rejected as a whole (NUL cannot be stored: a 400, never a 500).
          const expect = [...insideOutcome(rebase(base, changes), slot), invalid];
          return caseOf(base, 'encoding', `${slot.where} ${slot.name}: ${label}`, expect, {
            ...changes,
            ...(isForm ? tokenBodyChanges(slot) : {}),
          });
        }),
    );
  }
  if (operation.body !== undefined && !isForm) {
    const bodyCases: Array<[string, (base: Base) => Partial<FuzzCase>, (base: Base) => readonly Outcome[]]> = [
      [
        'bytes that are not UTF-8 inside a string',
        (base) => ({
          body: { value: { hex: notUtf8Body(base) }, contentType: base.body?.contentType ?? 'application/json' },
        }),
        (base) => [...expectedFor(base), invalid],
      ],
      [
        'charset=latin1',
        (base) => ({
          body: {
            value: base.body?.value ?? { text: '{}' },
            contentType: `${base.body?.contentType ?? 'application/json'}; charset=latin1`,
          },
        }),
        () => [unsupported],
      ],
      [
        'charset=utf-16 with UTF-8 bytes',
        (base) => ({
          body: {
            value: base.body?.value ?? { text: '{}' },
            contentType: `${base.body?.contentType ?? 'application/json'}; charset=utf-16`,
          },
        }),
        () => [invalid, unsupported],
      ],
      [
        'charset="UTF-8" quoted',
        (base) => ({
          body: {
            value: base.body?.value ?? { text: '{}' },
            contentType: `${base.body?.contentType ?? 'application/json'}; charset="UTF-8"`,
          },
        }),
        (base) => [...expectedFor(base), unsupported],
      ],
      [
        'a byte-order mark first',
        (base) => ({
          body: {
            value: { text: `\ufeff${JSON.stringify(bodyJson(base))}` },
            contentType: base.body?.contentType ?? 'application/json',
          },
        }),
        (base) => [...expectedFor(base), invalid],
      ],
      [
        'gzip-encoded',
        (base) => ({
          body: {
            value: { gzipJson: bodyJson(base) },
            contentType: base.body?.contentType ?? 'application/json',
            contentEncoding: 'gzip',
          },
        }),
        (base) => [...expectedFor(base), invalid, unsupported],
      ],
      [
        'Content-Encoding gzip on plain bytes',
        (base) => ({
          body: {
            value: base.body?.value ?? { text: '{}' },
            contentType: base.body?.contentType ?? 'application/json',
            contentEncoding: 'gzip',
          },
        }),
        () => [invalid, unsupported],
      ],
      [
        'an unknown Content-Encoding',
        (base) => ({
          body: {
            value: base.body?.value ?? { text: '{}' },
            contentType: base.body?.contentType ?? 'application/json',
            contentEncoding: 'x-pack',
          },
        }),
        () => [unsupported, invalid],
      ],
      [
        'a text/plain body',
        (base) => ({ body: { value: base.body?.value ?? { text: '{}' }, contentType: 'text/plain' } }),
        () => [unsupported],
      ],
      [
        'truncated JSON',
        (base) => ({
          body: {
            value: { text: JSON.stringify(bodyJson(base)).slice(0, -1) },
            contentType: base.body?.contentType ?? 'application/json',
          },
        }),
        () => [invalid],
      ],
      [
        'JSON with a trailing comma',
        (base) => ({
          body: {
            value: { text: JSON.stringify(bodyJson(base)).replace(/}$/, ',}') },
            contentType: base.body?.contentType ?? 'application/json',
          },
        }),
        () => [invalid],
      ],
      [
        'a duplicated JSON key',
        (base) => ({
          body: {
            value: { text: JSON.stringify(bodyJson(base)).replace(/^\{/, '{"zz":1,"zz":2,') },
            contentType: base.body?.contentType ?? 'application/json',
          },
        }),
        () => [invalid],
      ],
    ];
    options.push(
      fc
        .tuple(baseRequest(operation), fc.constantFrom(...bodyCases))
        .map(([base, [note, change, expect]]) => caseOf(base, 'encoding', note, expect(base), change(base))),
    );
  }
  if (operation.path.includes('{id}')) {
    const paths: Array<[string, string, readonly Outcome[] | 'own']> = [
      ['the own id, one character percent-encoded', '', 'own'],
      ['an encoded slash', 'ab%2Fcd', [invalid, notFound]],
      ['invalid percent-encoding', '%E0%A4%A', [invalid]],
      ['a bare percent sign', 'ab%zz', [invalid]],
      ['an encoded NUL', 'ab%00cd', [invalid]],
      ['encoded UTF-8', '%C3%A9t%C3%A9', [invalid]],
      ['encoded bytes that are not UTF-8', '%FF%FE', [invalid]],
      ['a dot segment', '..', [invalid, notFound, methodNotAllowed]],
    ];
    options.push(
      fc
        .tuple(baseRequest(operation), fc.constantFrom(...paths))
        .map(([base, [note, raw, outcome]]) =>
          outcome === 'own'
            ? caseOf(
                { ...base, id: { ref: 'own-encoded' } },
                'encoding',
                `path id: ${note}`,
                baseline(operation.operationId, 'own'),
                { id: { ref: 'own-encoded' } },
              )
            : caseOf(base, 'encoding', `path id: ${note}`, outcome, { id: { raw } }),
        ),
    );
  }
  const query = queryParameters(operation).filter(
    (parameter) =>
      typesOf(parameter.schema).includes('string') &&
      parameter.schema.enum === undefined &&
      parameter.name !== 'cursor',
  );
  if (query.length > 0) {
    const values: Array<[string, string]> = [
      ['encoded UTF-8', '%C3%A9l%C3%A9phant'],
      ['encoded bytes that are not UTF-8', '%FF%FE%FD'],
      ['a malformed escape', 'ab%G1'],
      ['a plus for a space', 'a+b'],
      ['an encoded NUL', 'a%00b'],
      ['encoded LIKE wildcards', '%25_%25'],
    ];
    options.push(
      fc
        .tuple(baseRequest(operation), fc.constantFrom(...query), fc.constantFrom(...values))
        .map(([base, parameter, [note, raw]]) =>
          caseOf(base, 'encoding', `query ${parameter.name}: ${note}`, [...expectedFor(base), invalid], {
            query: withQuery(base, parameter.name, raw),
          }),
        ),
    );
  }
  if (operation.write) {
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'encoding', 'Idempotency-Key of latin1 bytes', expectedFor(base), {
          write: { key: { raw: 'clé-ñandú-ÿ-øre-ßx' }, timestamp: 'now', signature: 'valid' },
        }),
      ),
    );
  }
  options.push(
    baseRequest(operation).map((base) =>
      caseOf(base, 'encoding', 'X-Request-Id of latin1 bytes', expectedFor(base), {
        headers: [['X-Request-Id', 'id-é-ÿ']],
      }),
    ),
  );
  if (operation.authenticated)
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'encoding', 'Authorization of latin1 bytes', [unauthorized], {
          auth: 'garbage',
          headers: [['Authorization', 'Bearer tökén']],
        }),
      ),
    );
  return fc.oneof(...options);
}

/** The body with one string value's bytes replaced by bytes that are not UTF-8 (hex of the whole body). */
function notUtf8Body(base: Base): string {
  const json = bodyJson(base);
  const text = JSON.stringify({ ...json, __marker__: 0 }).replace('"__marker__":0', '"__marker__":"\u0001"');
  const textField = Object.entries(json).find(([, value]) => typeof value === 'string')?.[0];
  const source = textField === undefined ? JSON.stringify(json) : text.replace(/,?"__marker__":"\u0001"/, '');
  const bytes = Buffer.from(source, 'utf8');
  if (textField === undefined)
    return Buffer.concat([bytes.subarray(0, 1), Buffer.from([0xff, 0xfe]), bytes.subarray(1)]).toString('hex');
  const at = bytes.indexOf(Buffer.from(`"${textField}":"`)) + textField.length + 4;
  return Buffer.concat([
    bytes.subarray(0, at),
    Buffer.from([0xc3, 0x28, 0xff, 0xa0, 0xa1]),
    bytes.subarray(at),
  ]).toString('hex');
}

function hugeFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> {
  const options: Array<fc.Arbitrary<FuzzCase>> = [];
  const isForm = operation.body?.contentTypes[0] === 'application/x-www-form-urlencoded';
  if (operation.body !== undefined) {
    const type = operation.body.contentTypes[0] ?? 'application/json';
    const kinds: Array<[BodyValue, string, readonly Outcome[]]> = isForm
      ? [
          [{ generated: 'oversize-form', size: 70_000 }, 'a form body over 64 KiB', [tooLarge]],
          [{ generated: 'many-form-fields', size: 40 }, 'a form body of 40 fields', [tooLarge, invalid]],
        ]
      : [
          [{ generated: 'oversize-json', size: 65_537 }, 'a JSON body of 64 KiB + 1 byte', [tooLarge]],
          [{ generated: 'oversize-json', size: 1_000_000 }, 'a JSON body of 1 MB', [tooLarge]],
          [
            { generated: 'near-limit-json', size: 65_000 },
            'a JSON body just under 64 KiB with a huge string',
            [invalid],
          ],
          [{ generated: 'deep-array', size: 20_000 }, 'arrays nested 20,000 deep', [invalid]],
          [{ generated: 'deep-object', size: 5_000 }, 'objects nested 5,000 deep', [invalid]],
          [{ generated: 'deep-field', size: 3_000 }, 'a field holding objects nested 3,000 deep', [invalid]],
          [{ generated: 'many-properties', size: 3_000 }, '3,000 unknown properties', [invalid]],
        ];
    options.push(
      fc
        .tuple(baseRequest(operation), fc.constantFrom(...kinds))
        .map(([base, [value, note, expect]]) =>
          caseOf(base, 'huge', note, expect, { body: { value, contentType: type } }),
        ),
    );
  }
  const queries: Array<[string, Array<[string, QueryValue]>]> = [
    [
      '200 unknown query parameters',
      Array.from({ length: 200 }, (_, index): [string, QueryValue] => [`p${index}`, 'x']),
    ],
    ['a 6,000-character query value', [['zz', 'x'.repeat(6_000)]]],
  ];
  options.push(
    fc
      .tuple(baseRequest(operation), fc.constantFrom(...queries))
      .map(([base, [note, query]]) => caseOf(base, 'huge', note, [invalid], { query })),
  );
  const longText = queryParameters(operation).find((parameter) => parameter.name === 'merchant');
  if (longText !== undefined)
    options.push(
      baseRequest(operation).map((base) =>
        caseOf(base, 'huge', 'merchant of 5,000 characters', [invalid], {
          query: withQuery(base, 'merchant', 'm'.repeat(5_000)),
        }),
      ),
    );
  return fc.oneof(...options);
}

function cursorFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> | undefined {
  if (!queryParameters(operation).some((parameter) => parameter.name === 'cursor')) return undefined;
  const modes: Array<[CursorMode, readonly Outcome[]]> = [
    ['valid', [ok]],
    ['tampered', [invalid]],
    ['truncated', [invalid]],
    ['other-list', [invalid]],
    ['other-limit', [invalid]],
    ['other-filters', [invalid]],
    ['garbage', [invalid]],
  ];
  return fc.tuple(baseRequest(operation), fc.constantFrom(...modes)).map(([base, [mode, expect]]) =>
    // Cursors are fetched with limit 2 and no filters (fuzz-plugin.ts): the modes change one of them.
    caseOf(base, 'cursor', `cursor: ${mode}`, expect, {
      query: [
        ['cursor', { cursor: mode }],
        ['limit', mode === 'other-limit' ? '3' : '2'],
        ...(mode === 'other-filters' ? [otherFilter(operation)] : []),
      ],
    }),
  );
}

function otherFilter(operation: OperationSpec): [string, QueryValue] {
  switch (operation.operationId) {
    case 'listTransfers':
      return ['status', 'PENDING'];
    case 'listTransactions':
      return ['statuses', 'SUCCEEDED'];
    default:
      return ['limit', '2'];
  }
}

function signatureFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> | undefined {
  if (!operation.write) return undefined;
  const modes: Array<[SignatureMode, readonly Outcome[]]> = [
    ['byte-off', [badSignature]],
    ['other-key', [badSignature]],
    ['other-path', [badSignature]],
    ['with-query', [badSignature]],
    ['lowercase-method', [badSignature]],
    ['other-timestamp', [badSignature]],
    ['empty', [missingSignature]],
    // Buffer's base64 decoding tolerates missing padding; the schema's pattern does not.
    ['unpadded', [badSignature, invalid]],
    [{ raw: 'bm90IGEgc2lnbmF0dXJl' }, [badSignature]],
    [{ raw: 'not base64 at all!' }, [badSignature, invalid]],
    [{ raw: 'A'.repeat(2_049) }, [badSignature, invalid]],
  ];
  const timestamps: Array<[TimestampMode, readonly Outcome[] | 'base']> = [
    [{ offset: -299 }, 'base'],
    [{ offset: 299 }, 'base'],
    [{ offset: -301 }, [badSignature]],
    [{ offset: 301 }, [badSignature]],
    [{ offset: -86_400 }, [badSignature]],
    [{ format: 'leading-zeros' }, 'base'],
    [{ format: 'decimal' }, [invalid]],
    [{ format: 'plus-sign' }, [invalid]],
    [{ format: 'spaces' }, 'base'], // Node trims header values
    [{ format: 'hex' }, [invalid]],
    [{ format: 'exponent' }, [invalid]],
    [{ format: 'negative' }, [invalid]],
    [{ format: 'sixteen-digits' }, [invalid]],
    [{ format: 'empty' }, [invalid]],
    [{ format: 'milliseconds' }, [badSignature]],
    [{ format: 'letters' }, [invalid]],
  ];
  const keys: Array<[KeyMode, readonly Outcome[] | 'base']> = [
    ['replay', 'base'],
    ['reuse-other-request', [{ status: 422, type: 'DuplicateIdempotencyKey' }]],
    [{ raw: ' '.repeat(12) }, [invalid, missingKey]],
    [{ raw: 'k'.repeat(36) }, 'base'],
  ];
  return fc.oneof(
    fc
      .tuple(baseRequest(operation), fc.constantFrom(...modes))
      .map(([base, [signature, expect]]) =>
        caseOf(
          base,
          'signature',
          `signature: ${typeof signature === 'string' ? signature : `raw ${signature.raw.slice(0, 30)}`}`,
          expect,
          { write: { key: 'fresh', timestamp: 'now', signature } },
        ),
      ),
    fc
      .tuple(baseRequest(operation), fc.constantFrom(...timestamps))
      .map(([base, [timestamp, expect]]) =>
        caseOf(
          base,
          'timestamp',
          `timestamp: ${JSON.stringify(timestamp)}`,
          expect === 'base' ? expectedFor(base) : expect,
          { write: { key: 'fresh', timestamp, signature: 'valid' } },
        ),
      ),
    fc
      .tuple(baseRequest(operation), fc.constantFrom(...keys))
      .map(([base, [key, expect]]) =>
        caseOf(
          base,
          'idempotency',
          `Idempotency-Key: ${typeof key === 'string' ? key : `raw ${JSON.stringify(key.raw)}`}`,
          expect === 'base' ? expectedFor(base) : expect,
          { write: { key, timestamp: 'now', signature: 'valid' } },
        ),
      ),
  );
}

function authFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> | undefined {
  if (operation.operationId === 'createToken') {
    const modes: Array<[TokenAuth, readonly Outcome[]]> = [
      ['basic-wrong-secret', [unauthorized, rateLimited]],
      ['basic-unknown-client', [unauthorized, rateLimited]],
      ['basic-garbage', [unauthorized, rateLimited]],
      ['both', [invalid]],
      ['post', [ok, rateLimited]],
    ];
    return fc
      .tuple(baseRequest(operation), fc.constantFrom(...modes))
      .map(([base, [tokenAuth, expect]]) =>
        caseOf(base, 'auth', `client authentication: ${tokenAuth}`, expect, { tokenAuth }),
      );
  }
  if (!operation.authenticated) return undefined;
  const modes: Array<[AuthMode, readonly Outcome[]]> = [
    ['garbage', [unauthorized]],
    ['tampered', [unauthorized]],
    ['alg-none', [unauthorized]],
    ['foreign-key', [unauthorized]],
    ['expired', [unauthorized]],
    ['wrong-audience', [unauthorized]],
    ['basic-instead', [unauthorized]],
    ['missing-scope', [forbidden]],
  ];
  return fc
    .tuple(baseRequest(operation), fc.constantFrom(...modes))
    .map(([base, [auth, expect]]) => caseOf(base, 'auth', `token: ${auth}`, expect, { auth }));
}

const PROBE_PATHS = [
  '/v1/transfers',
  '/v2/bank',
  '/v1/bank/nbe',
  '/v1',
  '/',
  '/v1/transfer/x/y/z',
  '/v1/card/x/limits/extra',
  '/v1/admin',
  '/.env',
  '/v1/oauth/authorize',
];
const PROBE_METHODS = ['DELETE', 'PUT', 'PATCH', 'OPTIONS', 'TRACE', 'POST', 'GET', 'PROPFIND'];

function probeFamily(operation: OperationSpec): fc.Arbitrary<FuzzCase> {
  const allowed = new Set(
    OPERATIONS.filter((candidate) => candidate.path === operation.path).map((candidate) => candidate.method),
  );
  const methods = PROBE_METHODS.filter((method) => !allowed.has(method));
  return fc.oneof(
    fc.tuple(baseRequest(operation), fc.constantFrom(...methods)).map(([base, method]) =>
      caseOf(base, 'probe', `${method} on ${operation.path}`, [methodNotAllowed], {
        method,
        auth: 'valid',
        query: [],
      }),
    ),
    fc
      .tuple(baseRequest(operation), fc.constantFrom(...PROBE_PATHS))
      .map(([base, rawPath]) =>
        caseOf(base, 'probe', `unknown path ${rawPath}`, [notFound, methodNotAllowed], { rawPath, query: [] }),
      ),
    baseRequest(operation).map((base) =>
      caseOf(base, 'probe', 'an unknown query parameter', [invalid], { query: [...base.query, ['debug', 'true']] }),
    ),
  );
}

const perOperation = new Map<string, fc.Arbitrary<FuzzCase>>();

/** Every family that applies to the operation. */
export function caseFor(operation: OperationSpec): fc.Arbitrary<FuzzCase> {
  const known = perOperation.get(operation.operationId);
  if (known !== undefined) return known;
  const families: Array<[number, fc.Arbitrary<FuzzCase> | undefined]> = [
    [3, validFamily(operation)],
    [5, boundaryFamily(operation)],
    [2, wrongTypeFamily(operation)],
    [2, missingFamily(operation)],
    [1, duplicateFamily(operation)],
    [2, encodingFamily(operation)],
    [1, hugeFamily(operation)],
    [2, cursorFamily(operation)],
    [3, signatureFamily(operation)],
    [2, authFamily(operation)],
    [1, probeFamily(operation)],
  ];
  const arbitrary = fc.oneof(
    ...families.flatMap(([weight, family]) => (family === undefined ? [] : [{ weight, arbitrary: family }])),
  );
  perOperation.set(operation.operationId, arbitrary);
  return arbitrary;
}

/** A case of any operation of the document. */
export const anyCase: fc.Arbitrary<FuzzCase> = fc.constantFrom(...OPERATIONS).chain(caseFor);
