/**
 * The changes between two bundled OpenAPI documents, each classified as a partner would feel
 * it: api-smart-diff finds and classifies them; the rules of ./rules.ts correct the classes it
 * gets wrong for this kind of contract; ./describe.ts writes each one's line.
 *
 * Before the library sees them, both documents are prepared (`prepareForComparison`): every
 * local `$ref` is inlined, so the library compares each operation with its own parameters,
 * bodies and responses in place. The library, given references, classifies a schema inside a
 * referenced response (`$ref: '#/components/responses/…'`) with the rules of a request, compares
 * a referenced schema once and repeats that first result (and its wording) wherever the schema is
 * used, and leaves an `allOf` whose members are references unmerged. What is left of
 * `components` is the security schemes, which operations name without referencing.
 */
import { apiCompare, type Diff } from 'api-smart-diff';
import { describeChange } from './describe.js';
import {
  isChangeType,
  isObject,
  pointerOfPath,
  verdictOf,
  type ChangeAction,
  type ChangeType,
  type Json,
  type JsonObject,
  type JsonPath,
  type Verdict,
} from './model.js';
import { reclassify, type RuleName } from './rules.js';

export interface ApiChange {
  readonly type: ChangeType;
  /** What api-smart-diff said of it, on the prepared documents. */
  readonly library: ChangeType;
  /** The rule of ./rules.ts that changed the library's class, if one did. */
  readonly rule?: RuleName;
  readonly action: ChangeAction;
  /** Where, in the document with every reference followed (a path may pass through a `$ref`). */
  readonly path: JsonPath;
  /** The same as a JSON pointer: `#/paths/~1v1~1card/get/parameters/1`. */
  readonly pointer: string;
  /** One line: the operation, what changed and how. */
  readonly description: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** Keywords a reference may carry beside `$ref` that only document: they override the target's. */
const ANNOTATION_SIBLINGS = new Set([
  'summary',
  'description',
  'title',
  'example',
  'examples',
  'deprecated',
  '$comment',
]);
/** Members of the document that are not part of the contract. */
const NOT_CONTRACT = new Set(['x-generated']);

function decodeToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

function lookup(document: Json, pointer: string): Json | undefined {
  let node: Json | undefined = document;
  for (const token of pointer.slice(2).split('/').map(decodeToken)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}

/**
 * The document with each local reference replaced by a copy of what it points at, and
 * `components` reduced to the security schemes (plus what a reference cycle, left as a `$ref`,
 * still points at). A reference with documentation siblings (`description`, `summary`, …) takes
 * them over the target's; one with other siblings becomes `allOf: [target, siblings]`, which
 * the library merges.
 */
export function prepareForComparison(document: Json): Json {
  const kept = new Map<string, Json>();
  const inline = (value: Json, expanding: readonly string[]): Json => {
    if (Array.isArray(value)) return value.map((item) => inline(item, expanding));
    if (!isObject(value)) return value;
    const ref = value['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      const target = lookup(document, ref);
      if (target === undefined) return value;
      if (expanding.includes(ref)) {
        // A cycle: left as a reference, which the library follows itself.
        if (!kept.has(ref)) {
          kept.set(ref, null);
          kept.set(ref, inline(target, [ref]));
        }
        return value;
      }
      const expanded = inline(target, [...expanding, ref]);
      const siblings = Object.fromEntries(Object.entries(value).filter(([key]) => key !== '$ref'));
      const keys = Object.keys(siblings);
      if (keys.length === 0) return expanded;
      const inlinedSiblings = inline(siblings, expanding) as JsonObject;
      if (keys.every((key) => ANNOTATION_SIBLINGS.has(key)) && isObject(expanded))
        return { ...expanded, ...inlinedSiblings };
      return { allOf: [expanded, inlinedSiblings] };
    }
    const copy: JsonObject = {};
    for (const [key, member] of Object.entries(value)) copy[key] = inline(member, expanding);
    return copy;
  };
  if (!isObject(document)) return document;
  const prepared: JsonObject = {};
  for (const [key, member] of Object.entries(document)) {
    if (NOT_CONTRACT.has(key) || key === 'components') continue;
    prepared[key] = inline(member, []);
  }
  const components = document['components'];
  if (isObject(components)) {
    const reduced: JsonObject = {};
    if (components['securitySchemes'] !== undefined)
      reduced['securitySchemes'] = inline(components['securitySchemes'], []);
    for (const [ref, target] of kept) {
      const [, section, name] = ref.slice(2).split('/').map(decodeToken);
      if (section === undefined || name === undefined || section === 'securitySchemes') continue;
      const bucket = isObject(reduced[section]) ? reduced[section] : {};
      bucket[name] = target;
      reduced[section] = bucket;
    }
    prepared['components'] = reduced;
  }
  return prepared;
}

/** Changes under `components` other than the security schemes repeat, without context, what the operations that use them report. */
function isRepeatedComponent(path: JsonPath): boolean {
  return path[0] === 'components' && path[1] !== 'securitySchemes';
}

function asChangeType(value: string): ChangeType {
  return isChangeType(value) ? value : 'unclassified';
}

/** The library's changes between two prepared documents. */
function libraryDiffs(before: Json, after: Json): Diff[] {
  return apiCompare(before, after).diffs;
}

/** Every change from `before` to `after` (bundled documents), classified, in the library's order. */
export function compareDocuments(before: Json, after: Json): ApiChange[] {
  const preparedBefore = prepareForComparison(before);
  const preparedAfter = prepareForComparison(after);
  const diffs = libraryDiffs(preparedBefore, preparedAfter).filter((diff) => !isRepeatedComponent(diff.path));
  const documents = { before: preparedBefore, after: preparedAfter };
  return reclassify(
    diffs.map((diff) => ({
      action: diff.action,
      path: diff.path,
      library: asChangeType(diff.type),
      libraryDescription: diff.description ?? '',
      before: diff.before as unknown,
      after: diff.after as unknown,
    })),
    documents,
  ).map((change) => {
    const base = {
      type: change.type,
      library: change.library,
      action: change.action,
      path: change.path,
      pointer: pointerOfPath(change.path),
      description: describeChange(change, documents),
    };
    return {
      ...base,
      ...(change.rule === undefined ? {} : { rule: change.rule }),
      ...(change.before === undefined ? {} : { before: change.before }),
      ...(change.after === undefined ? {} : { after: change.after }),
    };
  });
}

/**
 * What api-smart-diff alone says of two documents as they are (no preparation, no rules of
 * ours): the most severe class among its changes, leaving out those under `components` that
 * repeat an operation's. The tests keep it beside our verdict, so the table of what the library
 * gets wrong stays true.
 */
export function libraryVerdict(before: Json, after: Json): Verdict {
  const documents = [before, after].map((document) =>
    isObject(document)
      ? Object.fromEntries(Object.entries(document).filter(([key]) => !NOT_CONTRACT.has(key)))
      : document,
  ) as [Json, Json];
  return verdictOf(
    libraryDiffs(...documents)
      .filter((diff) => !isRepeatedComponent(diff.path))
      .map((diff) => asChangeType(diff.type)),
  );
}
