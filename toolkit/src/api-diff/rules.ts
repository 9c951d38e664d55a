/**
 * Our rules over api-smart-diff's classes, one per thing it gets wrong for a contract whose
 * request schemas are closed and whose partners read every response field. Each rule sees one
 * change (where it is, its values, both documents) and returns the class it should have, or
 * undefined to keep the library's. test/contract/api-diff.test.ts runs each rule on a pair of
 * documents and checks both classes, the library's and ours, so a rule that stops being needed,
 * or stops applying, fails there.
 *
 * | rule | the library says | we say |
 * |---|---|---|
 * | response-property-removed | removing a response property is breaking only if it was required | breaking: partners read optional fields too, and the field is gone for good |
 * | request-property-removed | removing a request property is non-breaking | breaking: a partner that still sends it is rejected by a closed schema, or silently ignored by an open one |
 * | type-as-set | a replaced `type` is breaking in a request, non-breaking in a response, whatever the types | the types compared as sets (`integer` within `number`): a request that accepts more, or a response that sends less, is non-breaking; anything else is breaking |
 * | closed-schema | `additionalProperties` in a request is always non-breaking, in a response always breaking; `unevaluatedProperties` is unclassified | how open the schema is to unnamed properties, by the more closing of the two keywords: a request schema closed (`false`) or narrowed is breaking, opened non-breaking; the reverse for a response; one closing keyword swapped for the other non-breaking |
 * | examples | an edit inside a named example (`examples/<name>/summary`, `…/value`) is unclassified | an annotation: examples document, no client depends on them |
 * | security-requirements | an operation's requirement with one more scheme or scope is non-breaking, with one fewer breaking; a change of the document's default requirement is unclassified | each operation's requirement (its own, else the document's) before and after: breaking when some client that was accepted no longer is, non-breaking when every one still is, an annotation when exactly the same clients are |
 * | security-schemes | adding a scheme is breaking, removing one non-breaking; a new scope or token URL is unclassified | adding or removing a scheme is non-breaking (operations' requirements say who needs it), a new scope or flow is non-breaking, a removed scope or flow and any other change of a scheme (type, token URL, header name, …) breaking, its description an annotation |
 * | servers | every change of `servers` is an annotation | a server removed, or its URL or a variable's default changed, is breaking (clients call that URL); a server added is non-breaking |
 *
 * All changes to one security requirement (the document's, or an operation's) are reported as
 * one change of the whole requirement.
 */
import { isObject, verdictOf, type ChangeAction, type ChangeType, type Json, type JsonPath } from './model.js';
import { operationOf, schemaLocationOf, type SchemaLocation } from './locate.js';

export const RULE_NAMES = [
  'response-property-removed',
  'request-property-removed',
  'type-as-set',
  'closed-schema',
  'examples',
  'security-requirements',
  'security-schemes',
  'servers',
] as const;
export type RuleName = (typeof RULE_NAMES)[number];

export interface RawChange {
  readonly action: ChangeAction;
  readonly path: JsonPath;
  readonly library: ChangeType;
  readonly libraryDescription: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

export interface ClassifiedChange extends RawChange {
  readonly type: ChangeType;
  readonly rule?: RuleName;
}

export interface Documents {
  readonly before: Json;
  readonly after: Json;
}

interface RuleInput {
  readonly change: RawChange;
  readonly schema: SchemaLocation | undefined;
  readonly documents: Documents;
}

type Rule = (input: RuleInput) => ChangeType | undefined;

const RULES: Readonly<Record<RuleName, Rule>> = {
  'response-property-removed': ({ change, schema }) =>
    change.action === 'remove' &&
    schema?.side === 'response' &&
    schema.keyword === 'properties' &&
    schema.member !== undefined
      ? 'breaking'
      : undefined,

  'request-property-removed': ({ change, schema }) =>
    change.action === 'remove' &&
    schema?.side === 'request' &&
    schema.keyword === 'properties' &&
    schema.member !== undefined
      ? 'breaking'
      : undefined,

  'type-as-set': ({ change, schema }) => {
    if (change.action !== 'replace' || schema?.keyword !== 'type' || schema.rest.length > 0) return undefined;
    const before = typeSet(change.before);
    const after = typeSet(change.after);
    if (before === undefined || after === undefined) return undefined;
    const widened = [...before].every((type) => accepts(after, type));
    const narrowed = [...after].every((type) => accepts(before, type));
    if (schema.side === 'request') return widened ? 'non-breaking' : 'breaking';
    return narrowed ? 'non-breaking' : 'breaking';
  },

  'closed-schema': ({ change, schema, documents }) => {
    if (schema === undefined || schema.rest.length > 0 || !CLOSING.has(schema.keyword)) return undefined;
    const parent = change.path.slice(0, -1);
    const before = openness(
      valueAt(documents.before, parent),
      change.action === 'add' ? undefined : change.before,
      schema.keyword,
    );
    const after = openness(
      valueAt(documents.after, parent),
      change.action === 'remove' ? undefined : change.after,
      schema.keyword,
    );
    // One closing keyword for the other (`additionalProperties: false` for an allOf closed by `unevaluatedProperties: false`).
    if (before === after) return 'non-breaking';
    const opened = after > before;
    return (schema.side === 'request') === opened ? 'non-breaking' : 'breaking';
  },

  examples: ({ change }) => (isExample(change.path) ? 'annotation' : undefined),

  'security-requirements': ({ change, documents }) => {
    const operation = operationOf(change.path);
    if (change.path[0] === 'security' && change.path.length === 1) {
      return worst(
        inheritingOperations(documents).map(([path, method]) => compareRequirements(documents, path, method)),
      );
    }
    if (operation !== undefined && operation.rest.length === 1 && operation.rest[0] === 'security') {
      return compareRequirements(documents, operation.path, operation.method);
    }
    return undefined;
  },

  'security-schemes': ({ change }) => {
    const [top, section, , key, flow, flowKey, scope] = change.path;
    if (top !== 'components' || section !== 'securitySchemes') return undefined;
    const depth = change.path.length;
    if (depth <= 3) return change.action === 'replace' ? 'breaking' : 'non-breaking';
    if (key === 'description' || key === 'bearerFormat' || (typeof key === 'string' && key.startsWith('x-')))
      return 'annotation';
    if (key === 'flows' && depth === 5) return change.action === 'add' ? 'non-breaking' : 'breaking';
    if (key === 'flows' && flowKey === 'scopes' && flow !== undefined) {
      if (scope === undefined) return change.action === 'add' ? 'non-breaking' : 'breaking';
      if (depth === 7)
        return change.action === 'add' ? 'non-breaking' : change.action === 'remove' ? 'breaking' : 'annotation';
    }
    return 'breaking';
  },

  servers: ({ change }) => {
    const at = serversIndex(change.path);
    if (at === undefined) return undefined;
    const rest = change.path.slice(at + 1);
    const [, key, variable, variableKey] = rest;
    if (rest.length === 0) return 'breaking';
    if (rest.length === 1) return change.action === 'add' ? 'non-breaking' : 'breaking';
    if (key === 'url') return 'breaking';
    if (key === 'description') return 'annotation';
    if (key === 'variables' && variable !== undefined) {
      if (rest.length === 3) return change.action === 'add' ? 'non-breaking' : 'breaking';
      if (variableKey === 'default') return 'breaking';
      if (variableKey === 'description') return 'annotation';
      if (variableKey === 'enum') return change.action === 'add' && rest.length === 5 ? 'non-breaking' : 'breaking';
    }
    return undefined;
  },
};

/** Where `servers` sits in a path: the document's, a path item's or an operation's. */
function serversIndex(path: JsonPath): number | undefined {
  if (path[0] === 'servers') return 0;
  if (path[0] !== 'paths') return undefined;
  if (path[2] === 'servers') return 2;
  if (operationOf(path) !== undefined && path[3] === 'servers') return 3;
  return undefined;
}

function typeSet(value: unknown): Set<string> | undefined {
  if (typeof value === 'string') return new Set([value]);
  if (Array.isArray(value) && value.every((item): item is string => typeof item === 'string')) return new Set(value);
  return undefined;
}

/** Whether a schema of `types` accepts every value of `type`. */
function accepts(types: ReadonlySet<string>, type: string): boolean {
  return types.has(type) || (type === 'integer' && types.has('number'));
}

const CLOSING = new Set(['additionalProperties', 'unevaluatedProperties']);

/** 0: closed (`false`); 1: a schema the extra properties must match; 2: open (absent, `true`, `{}`). */
function opennessOf(value: unknown): number {
  if (value === undefined || value === true || (isObject(value) && Object.keys(value).length === 0)) return 2;
  if (value === false) return 0;
  return 1;
}

/**
 * How open a schema is to properties it does not name, by the more closing of its two keywords;
 * by the changed keyword's value alone where the schema is not found as such (the library
 * compares some schemas transformed, an allOf merged).
 */
function openness(schema: Json | undefined, value: unknown, keyword: string): number {
  if (!isObject(schema)) return opennessOf(value);
  const keywords = {
    additionalProperties: schema['additionalProperties'],
    unevaluatedProperties: schema['unevaluatedProperties'],
    [keyword]: value,
  };
  return Math.min(opennessOf(keywords.additionalProperties), opennessOf(keywords.unevaluatedProperties));
}

/** Whether a path is inside an example (`example`, `examples`), documentation that no client depends on. */
function isExample(path: JsonPath): boolean {
  return path.some(
    (token, index) =>
      (token === 'example' || token === 'examples') &&
      index > 0 &&
      path[index - 1] !== 'properties' &&
      path[0] === 'paths',
  );
}

type Requirement = ReadonlyMap<string, ReadonlySet<string>>;

/** An operation's requirement alternatives (its own, else the document's); none means anyone. */
function requirementsOf(document: Json, path: string, method: string): Requirement[] | undefined {
  if (!isObject(document) || !isObject(document['paths'])) return undefined;
  const item = document['paths'][path];
  const operation = isObject(item) ? item[method] : undefined;
  if (!isObject(operation)) return undefined;
  const security = operation['security'] ?? document['security'] ?? [];
  if (!Array.isArray(security)) return undefined;
  if (security.length === 0) return [new Map()];
  return security.map(
    (alternative) =>
      new Map(
        Object.entries(isObject(alternative) ? alternative : {}).map(([scheme, scopes]) => [
          scheme,
          new Set(Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === 'string') : []),
        ]),
      ),
  );
}

/** Whether a client that meets `met` also meets `asked`: every scheme asked, with every scope asked. */
function satisfies(met: Requirement, asked: Requirement): boolean {
  return [...asked].every(([scheme, scopes]) => {
    const held = met.get(scheme);
    return held !== undefined && [...scopes].every((scope) => held.has(scope));
  });
}

/** Breaking when some client the operation accepted is rejected now; an annotation when the same clients are accepted. */
function compareRequirements(documents: Documents, path: string, method: string): ChangeType | undefined {
  const before = requirementsOf(documents.before, path, method);
  const after = requirementsOf(documents.after, path, method);
  if (before === undefined || after === undefined) return undefined;
  const everyoneStill = before.every((met) => after.some((asked) => satisfies(met, asked)));
  if (!everyoneStill) return 'breaking';
  const nobodyNew = after.every((met) => before.some((asked) => satisfies(met, asked)));
  return nobodyNew ? 'annotation' : 'non-breaking';
}

/** Operations in both documents that take the document's requirement in either. */
function inheritingOperations(documents: Documents): Array<[path: string, method: string]> {
  const operations = (document: Json): Map<string, Json> => {
    const found = new Map<string, Json>();
    if (!isObject(document) || !isObject(document['paths'])) return found;
    for (const [path, item] of Object.entries(document['paths'])) {
      if (!isObject(item)) continue;
      for (const [method, operation] of Object.entries(item))
        if (isObject(operation)) found.set(JSON.stringify([path, method]), operation);
    }
    return found;
  };
  const before = operations(documents.before);
  const after = operations(documents.after);
  const inheriting: Array<[string, string]> = [];
  for (const [key, operation] of before) {
    const other = after.get(key);
    if (!isObject(operation) || !isObject(other)) continue;
    if (operation['security'] === undefined || other['security'] === undefined)
      inheriting.push(JSON.parse(key) as [string, string]);
  }
  return inheriting;
}

function worst(types: ReadonlyArray<ChangeType | undefined>): ChangeType {
  const verdict = verdictOf(types.filter((type): type is ChangeType => type !== undefined));
  return verdict === 'none' ? 'non-breaking' : verdict;
}

/** The prefix of a path that is one security requirement list (the document's or an operation's). */
function requirementPrefix(path: JsonPath): JsonPath | undefined {
  if (path[0] === 'security') return path.slice(0, 1);
  const operation = operationOf(path);
  if (operation !== undefined && operation.rest[0] === 'security') return path.slice(0, 4);
  return undefined;
}

function valueAt(document: Json, path: JsonPath): Json | undefined {
  let node: Json | undefined = document;
  for (const token of path) {
    if (Array.isArray(node) && typeof token === 'number') node = node[token];
    else if (isObject(node)) node = node[String(token)];
    else return undefined;
  }
  return node;
}

/** All changes inside one security requirement list, as one change of the list. */
function groupRequirements(changes: readonly RawChange[], documents: Documents): RawChange[] {
  const grouped: RawChange[] = [];
  const groups = new Map<string, { index: number; members: RawChange[]; prefix: JsonPath }>();
  for (const change of changes) {
    const prefix = requirementPrefix(change.path);
    if (prefix === undefined) {
      grouped.push(change);
      continue;
    }
    const key = JSON.stringify(prefix);
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { index: grouped.length, members: [change], prefix });
      grouped.push(change);
    } else group.members.push(change);
  }
  for (const { index, members, prefix } of groups.values()) {
    const before = valueAt(documents.before, prefix);
    const after = valueAt(documents.after, prefix);
    const action: ChangeAction = before === undefined ? 'add' : after === undefined ? 'remove' : 'replace';
    const verdict = verdictOf(members.map((member) => member.library));
    grouped[index] = {
      action,
      path: prefix,
      library: verdict === 'none' ? 'unclassified' : verdict,
      libraryDescription:
        members.length === 1 && members[0] !== undefined && members[0].path.length === prefix.length
          ? members[0].libraryDescription
          : '',
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    };
  }
  return grouped;
}

/** Applies the rules: the first that speaks decides; none keeps the library's class. */
export function reclassify(changes: readonly RawChange[], documents: Documents): ClassifiedChange[] {
  return groupRequirements(changes, documents).map((change) => {
    const input: RuleInput = { change, schema: schemaLocationOf(change.path), documents };
    for (const name of RULE_NAMES) {
      const type = RULES[name](input);
      if (type === undefined) continue;
      return type === change.library ? { ...change, type } : { ...change, type, rule: name };
    }
    return { ...change, type: change.library };
  });
}
