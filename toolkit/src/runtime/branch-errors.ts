import { readFileSync } from 'node:fs';
import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { isReference, resolveLocal } from './openapi-refs.js';

/**
 * Which error a rejection names when a value fails a `oneOf` or `anyOf` of the document: the error
 * of the branch the value was meant for, not whichever branch the validator tried first.
 *
 * With allErrors, Ajv reports every failing branch's errors, branch by branch, then the failure
 * itself. Each error's `schemaPath` (kept by the patch
 * patches/express-openapi-validator+5.6.2+006+keep-schema-path.patch) names the branch that
 * reported it: `<the oneOf's schemaPath>/2/...` for a branch written in place. A `$ref` branch's
 * errors name the schema it references instead (or one that schema references): in full where Ajv
 * copies it in (`#/components/schemas/Guest/...`), from its own root where Ajv compiles it apart
 * (`#/properties/deposit/minimum`). Where two branches fit an error, Ajv's order decides. The
 * branch meant is, in this order:
 *   1. the one the schema's `discriminator` names for the value's tag (`mapping`, or the component
 *      name of a `$ref` branch without one);
 *   2. the only one whose `const` or `enum` for a property holds the value's (`kind: {const: guest}`);
 *   3. the one with the fewest errors, among those whose type the value has (an object is not
 *      meant for a `type: 'null'` branch); the first in document order on a tie.
 * A tag that matches no branch is named itself, with the values the branches allow
 * (`body.borrower.kind must be one of: member, guest`). The chosen branch's errors are read the
 * same way when they hold a nested `oneOf`/`anyOf` failure. The document is read for these rules
 * and for the `$ref`s of the branches.
 *
 * The validator checks a top-level body with a discriminator on its own (only the branch the tag
 * names, or a rejection of the tag before anything else): its errors carry paths inside the body
 * without the `/body` in front, which this puts back.
 */

/** One of the validator's errors (its `ValidationErrorItem`). */
export interface ValidatorErrorItem {
  readonly path?: string;
  readonly message?: string;
  readonly errorCode?: string;
  readonly schemaPath?: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** A schema object of the document (boolean schemas have no keywords to look at). */
type Schema = { readonly [keyword: string]: unknown };

/** The document, the operation's schemas as the properties of one (`body`, `query`, `headers`, `params`, `cookies`) and the values checked. */
interface BranchContext {
  readonly document: object;
  readonly root: Schema;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The places the validator's instance paths start with. */
const LOCATED = /^\/(?:body|query|headers|params|cookies)(?:\/|$)/;
const COMPOSITE = new Set(['oneOf', 'anyOf']);
/** How many schemas one walk of the document may visit (a bound on cycles). */
const MAX_SCHEMAS = 2000;
/** Past this many errors (a body of thousands of failing items) they stay in the validator's order. */
const MAX_ERRORS = 1000;

const asSchema = (value: unknown): Schema | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
const keywordOf = (error: ValidatorErrorItem): string => error.errorCode?.replace(/\.openapi\.validation$/, '') ?? '';
const unescapeToken = (token: string): string => token.replaceAll('~1', '/').replaceAll('~0', '~');
/** The segments of an instance path (`/body/a~1b` is `body`, `a/b`); undefined for anything else. */
const segmentsOf = (path: string | undefined): string[] | undefined =>
  path === '' ? [] : path?.startsWith('/') === true ? path.split('/').slice(1).map(unescapeToken) : undefined;
const pointerOf = (segments: readonly string[]): string =>
  segments.map((s) => `/${s.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
const startsWith = (path: readonly string[], prefix: readonly string[]): boolean =>
  prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
/** Whether a schema path is at or inside a location (`#/oneOf/1/required` is inside `#/oneOf/1`). */
const under = (schemaPath: string, location: string): boolean =>
  schemaPath === location || schemaPath.startsWith(`${location}/`);
const holdsRef = (node: unknown): boolean =>
  typeof node === 'object' && node !== null && (isReference(node) || Object.values(node).some(holdsRef));

function deref(document: object, value: unknown): Schema | undefined {
  try {
    return asSchema(resolveLocal(document, value));
  } catch {
    return undefined;
  }
}

/** A schema and the schemas that apply to the same value through `$ref` and `allOf` (and `oneOf`/`anyOf` when `composites`). */
function expand(document: object, schema: unknown, composites = true): Schema[] {
  const seen: Schema[] = [];
  for (const queue = [schema]; queue.length > 0 && seen.length < MAX_SCHEMAS;) {
    const s = asSchema(queue.shift());
    if (s === undefined || seen.includes(s)) continue;
    seen.push(s);
    if (isReference(s)) queue.push(deref(document, { $ref: s.$ref }));
    for (const keyword of composites ? ['allOf', 'anyOf', 'oneOf'] : ['allOf'])
      if (Array.isArray(s[keyword])) queue.push(...(s[keyword] as unknown[]));
  }
  return seen;
}

/** Every schema that applies to the value at `segments` under `schema` (where a `oneOf` is looked for). */
function reach(document: object, schema: unknown, segments: readonly string[]): Schema[] {
  return segments.reduce(
    (current, segment) =>
      current.flatMap((s) => {
        const properties = asSchema(s['properties']);
        const prefix = Array.isArray(s['prefixItems']) ? (s['prefixItems'] as unknown[]) : [];
        const items = /^(?:0|[1-9]\d*)$/.test(segment)
          ? [Number(segment) < prefix.length ? prefix[Number(segment)] : s['items']]
          : [];
        const named =
          properties !== undefined && Object.hasOwn(properties, segment)
            ? properties[segment]
            : s['additionalProperties'];
        return [named, ...items].flatMap((child) => expand(document, child));
      }),
    expand(document, schema),
  );
}

/**
 * The schemas a branch references, directly or not, each with whether Ajv compiles it apart: it
 * copies in a schema without `$ref`s of its own (whose errors then name it in full) and compiles
 * the others on their own (whose errors then have paths from their own root), by its `inlineRefs`.
 */
function referenced(
  document: object,
  branch: unknown,
): Array<{ readonly ref: string; readonly target: Schema; readonly apart: boolean }> {
  const found = new Map<string, Schema>();
  const queue = [branch];
  for (let visited = 0; queue.length > 0 && visited < MAX_SCHEMAS; visited += 1) {
    const node = queue.pop();
    if (typeof node !== 'object' || node === null) continue;
    const target = isReference(node) && !found.has(node.$ref) ? deref(document, { $ref: node.$ref }) : undefined;
    if (isReference(node) && target !== undefined) found.set(node.$ref, target);
    queue.push(target, ...Object.values(node));
  }
  return [...found].map(([ref, target]) => ({ ref, target, apart: holdsRef(target) }));
}

/** Ajv's parameters that carry the keyword's value (`type: 'null'`, `limit: 10`, `allowedValues: [...]`). */
const VALUE_PARAMS = ['type', 'limit', 'multipleOf', 'pattern', 'format', 'allowedValue', 'allowedValues'];

/**
 * Whether a schema path from a schema's root (`#/properties/deposit/minimum`) names a keyword the
 * schema has, with the value Ajv's parameters report (the missing property one it requires).
 */
function locatedIn(schema: Schema, schemaPath: string, params: Readonly<Record<string, unknown>> = {}): boolean {
  if (!schemaPath.startsWith('#/')) return false;
  let node: unknown = schema;
  for (const segment of schemaPath
    .slice(2)
    .split('/')
    .map((token) => unescapeToken(decodeURIComponent(token)))) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return false;
    node = (node as Record<string, unknown>)[segment];
  }
  if (Array.isArray(node) && typeof params['missingProperty'] === 'string')
    return node.includes(params['missingProperty']);
  const key = VALUE_PARAMS.find((name) => Object.hasOwn(params, name));
  // A `type` list is reported joined (`string,null`).
  return (
    key === undefined ||
    JSON.stringify(Array.isArray(node) && key === 'type' ? node.join(',') : node) === JSON.stringify(params[key])
  );
}

/**
 * Which branch reported each error: Ajv reports the branches' errors in order, at least one of
 * each branch that failed, and no error twice in one branch. Of the assignments that give each
 * error a branch its schema path fits, the one that keeps to a branch longest; undefined if none.
 */
function assign(
  block: readonly ValidatorErrorItem[],
  possible: ReadonlyArray<readonly number[]>,
  failing: readonly number[],
): number[] | undefined {
  // fits[i][j]: errors i and after can be assigned in order, error i to failing[j].
  const fits: boolean[][] = [];
  for (let i = block.length - 1; i >= 0; i -= 1) {
    const next = fits[i + 1];
    fits[i] = failing.map(
      (k, j) =>
        possible[i]?.includes(k) === true &&
        (next === undefined ? j === failing.length - 1 : next[j] === true || next[j + 1] === true),
    );
  }
  let j = 0;
  let seen = new Set<string>();
  const owners: number[] = [];
  for (const [i, error] of block.entries()) {
    const signature = JSON.stringify([error.path, error.schemaPath, error.params]);
    if (i > 0 && (fits[i]?.[j] !== true || seen.has(signature))) [j, seen] = [j + 1, new Set()];
    if (fits[i]?.[j] !== true) return undefined;
    seen.add(signature);
    owners.push(failing[j] as number);
  }
  return owners;
}

/** The tag values a discriminator gives each `$ref` branch: the `mapping` keys that name it, else its component name (as the validator reads them). */
function discriminatorValues(
  site: Schema,
  branches: readonly unknown[],
): Array<{ readonly value: string; readonly branch: number }> {
  const mapping = Object.entries(asSchema(asSchema(site['discriminator'])?.['mapping']) ?? {});
  return branches.flatMap((branch, k) => {
    if (!isReference(branch)) return [];
    const keys = mapping
      .filter(
        ([, to]) => typeof to === 'string' && (to.includes('/') ? to : `#/components/schemas/${to}`) === branch.$ref,
      )
      .map(([key]) => key);
    return (keys.length > 0 ? keys : [unescapeToken(branch.$ref.slice(branch.$ref.lastIndexOf('/') + 1))]).map(
      (value) => ({ value, branch: k }),
    );
  });
}

/** The values a branch allows a property by `const` or `enum` (through `$ref` and `allOf`), if it fixes them. */
function fixedValues(document: object, branch: unknown, property: string): unknown[] | undefined {
  const own = expand(document, branch, false).flatMap((s) =>
    Object.hasOwn(asSchema(s['properties']) ?? {}, property)
      ? expand(document, asSchema(s['properties'])?.[property], false)
      : [],
  );
  const fixing = own.find((s) => Object.hasOwn(s, 'const') || Array.isArray(s['enum']));
  return fixing === undefined
    ? undefined
    : Object.hasOwn(fixing, 'const')
      ? [fixing['const']]
      : (fixing['enum'] as unknown[]);
}

type Choice = { readonly branch: number } | { readonly tag: string; readonly allowed: readonly unknown[] };

/** Rules 1 and 2 of this file's description: the branch the value's tag names, the tag that names none, or undefined. */
function chooseByTag(document: object, site: Schema, branches: readonly unknown[], value: unknown): Choice | undefined {
  const object = asSchema(value);
  if (object === undefined) return undefined;
  const name = asSchema(site['discriminator'])?.['propertyName'];
  const discriminator = typeof name === 'string' ? name : undefined;
  const byDiscriminator = discriminator === undefined ? [] : discriminatorValues(site, branches);
  const named = byDiscriminator.find((option) => discriminator !== undefined && option.value === object[discriminator]);
  if (named !== undefined) return { branch: named.branch };
  // The properties some branch fixes, the discriminator's first, with each branch's allowed values.
  const names = new Set([
    ...(discriminator === undefined ? [] : [discriminator]),
    ...branches.flatMap((b) => expand(document, b, false)).flatMap((s) => Object.keys(asSchema(s['properties']) ?? {})),
  ]);
  const tags = [...names]
    .filter(
      (tag) =>
        Object.hasOwn(object, tag) &&
        (object[tag] === null || ['string', 'number', 'boolean'].includes(typeof object[tag])),
    )
    .map((tag) => ({
      tag,
      allowed: branches.map(
        (branch, k) =>
          fixedValues(document, branch, tag) ??
          (tag === discriminator ? byDiscriminator.filter((o) => o.branch === k).map((o) => o.value) : undefined),
      ),
    }))
    .filter(({ allowed }) => allowed.some((values) => values !== undefined && values.length > 0));
  for (const { tag, allowed } of tags) {
    const matching = allowed.flatMap((values, k) => (values?.includes(object[tag]) === true ? [k] : []));
    if (matching.length === 1) return { branch: matching[0] as number };
  }
  const rejected = tags.find(({ tag, allowed }) =>
    allowed.every((values) => values !== undefined && values.length > 0 && !values.includes(object[tag])),
  );
  return rejected === undefined
    ? undefined
    : { tag: rejected.tag, allowed: [...new Set(rejected.allowed.flatMap((values) => values ?? []))] };
}

/** Rule 3: the branch with the fewest errors among those whose type the value has; the first on a tie. */
function fewestErrors(
  block: readonly ValidatorErrorItem[],
  owners: readonly number[],
  count: number,
  at: string,
): { readonly branch: number } {
  const ranked = Array.from({ length: count }, (_, branch) => {
    const own = block.filter((_, i) => owners[i] === branch);
    // A `type` failure of the branch's own value: the value is of another type than the branch takes.
    return {
      branch,
      otherType: own.some((error) => keywordOf(error) === 'type' && error.path === at),
      errors: own.length,
    };
  }).sort((a, b) => Number(a.otherType) - Number(b.otherType) || a.errors - b.errors || a.branch - b.branch);
  return { branch: ranked[0]?.branch ?? 0 };
}

/** The error that names a tag no branch takes. */
const tagError = (at: readonly string[], tag: string, allowed: readonly unknown[]): ValidatorErrorItem => ({
  path: pointerOf([...at, tag]),
  message: `must be one of: ${allowed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`,
  errorCode: 'enum.openapi.validation',
});

const valueAt = (data: Readonly<Record<string, unknown>>, segments: readonly string[]): unknown =>
  segments.reduce<unknown>(
    (value, s) =>
      typeof value === 'object' && value !== null && Object.hasOwn(value, s)
        ? (value as Record<string, unknown>)[s]
        : undefined,
    data,
  );

/**
 * The error to report of `errors`, read in `scope` (the schema of the value at `at`): the first,
 * unless it is a branch's error of a failed `oneOf`/`anyOf`: then the error of the branch meant.
 */
function intendedError(
  errors: readonly ValidatorErrorItem[],
  scope: unknown,
  at: readonly string[],
  context: BranchContext,
): ValidatorErrorItem | undefined {
  const first = errors[0];
  const firstPath = segmentsOf(first?.path);
  if (first === undefined || firstPath === undefined) return first;
  // The failures whose branches the first error may be of, the outermost (reported last) first.
  for (let c = errors.length - 1; c > 0; c -= 1) {
    const { schemaPath: location, params } = errors[c] as ValidatorErrorItem;
    const keyword = keywordOf(errors[c] as ValidatorErrorItem);
    const path = segmentsOf(errors[c]?.path);
    if (
      !COMPOSITE.has(keyword) ||
      path === undefined ||
      location === undefined ||
      !startsWith(firstPath, path) ||
      !startsWith(path, at)
    )
      continue;
    const site = reach(context.document, scope, path.slice(at.length)).find((s) => Array.isArray(s[keyword]));
    if (site === undefined) continue;
    // Every error before the failure must be one of its branches': at or under its value, in a schema a branch holds.
    const block = errors.slice(0, c);
    if (!block.every((e) => startsWith(segmentsOf(e.path) ?? [], path))) continue;
    const branches = site[keyword] as unknown[];
    const refs = branches.map((branch) => referenced(context.document, branch));
    const possible = block.map(({ schemaPath = '', params: given }) =>
      refs.flatMap((targets, k) =>
        under(schemaPath, `${location}/${k}`) ||
        targets.some((t) => under(schemaPath, t.ref) || (t.apart && locatedIn(t.target, schemaPath, given)))
          ? [k]
          : [],
      ),
    );
    const passing = params?.['passingSchemas'];
    const owners = assign(
      block,
      possible,
      branches.map((_, k) => k).filter((k) => !(Array.isArray(passing) && passing.includes(k))),
    );
    if (owners === undefined) continue;
    const choice =
      chooseByTag(context.document, site, branches, valueAt(context.data, path)) ??
      fewestErrors(block, owners, branches.length, pointerOf(path));
    if ('tag' in choice) return tagError(path, choice.tag, choice.allowed);
    const own = block.filter((_, i) => owners[i] === choice.branch);
    // None: the value passes the branch (a oneOf that more than one branch takes). Else read them
    // the same way: fewer errors than here (not the failure itself), so this ends.
    return own.length === 0 ? errors[c] : intendedError(own, branches[choice.branch], path, context);
  }
  return first;
}

/**
 * The validator's errors with the one a rejection reports first: the intended branch's where the
 * first error is a branch error of a failed `oneOf`/`anyOf` (a tag no branch takes becomes an
 * error of its own), and a top-level body's discriminated branch errors under `/body`.
 */
function intendedBranchFirst(
  errors: readonly ValidatorErrorItem[],
  context: BranchContext,
): readonly ValidatorErrorItem[] {
  if (errors.length > MAX_ERRORS) return errors;
  // The validator's rejection of a top-level body's discriminator tag: one error, without a keyword.
  const body = expand(context.document, asSchema(context.root['properties'])?.['body'], false).find(
    (s) => asSchema(s['discriminator']) !== undefined,
  );
  const property = asSchema(body?.['discriminator'])?.['propertyName'];
  const branches = body?.['oneOf'] ?? body?.['anyOf'];
  if (
    body !== undefined &&
    typeof property === 'string' &&
    Array.isArray(branches) &&
    errors.length === 1 &&
    errors[0]?.errorCode === undefined
  ) {
    const values = [...new Set(discriminatorValues(body, branches).map((option) => option.value))];
    const tag = valueAt(context.data, ['body', property]);
    return typeof tag === 'string' && values.includes(tag) ? errors : [tagError(['body'], property, values), ...errors];
  }
  // Ajv's errors of the branch the validator checked alone have paths inside the body.
  const inBody = (e: ValidatorErrorItem): boolean =>
    body !== undefined && e.errorCode !== undefined && segmentsOf(e.path) !== undefined && !LOCATED.test(e.path ?? '');
  const located = errors.map((e) => (inBody(e) ? { ...e, path: `/body${e.path ?? ''}` } : e));
  const chosen = intendedError(located, context.root, [], context);
  if (chosen === undefined || (chosen === located[0] && located.every((e, i) => e === errors[i]))) return errors;
  return [chosen, ...located.filter((error) => error !== chosen)];
}

/** The context of a request the validator rejected, or undefined when its operation is not found in the document. */
function contextOf(document: object, req: Request): BranchContext | undefined {
  const route = (req as Request & { openapi?: { readonly openApiRoute?: string } }).openapi?.openApiRoute;
  const paths = asSchema((document as Schema)['paths']) ?? {};
  const method = req.method.toLowerCase();
  // The route is the document's path after the base path of its server.
  const key = Object.keys(paths)
    .filter((path) => route?.endsWith(path) === true && asSchema(asSchema(paths[path])?.[method]) !== undefined)
    .sort((a, b) => b.length - a.length)[0];
  const pathItem = key === undefined ? undefined : asSchema(paths[key]);
  const operation = asSchema(pathItem?.[method]);
  if (pathItem === undefined || operation === undefined) return undefined;
  // The parameters of the path item and the operation (the operation's win), by place and name.
  const places: Record<string, Record<string, unknown>> = { query: {}, header: {}, path: {}, cookie: {} };
  for (const entry of [pathItem['parameters'], operation['parameters']].flatMap((list) =>
    Array.isArray(list) ? (list as unknown[]) : [],
  )) {
    const parameter = deref(document, entry);
    const place = places[String(parameter?.['in'])];
    if (parameter === undefined || place === undefined || typeof parameter['name'] !== 'string') continue;
    place[parameter['in'] === 'header' ? parameter['name'].toLowerCase() : parameter['name']] =
      parameter['schema'] ?? asSchema(Object.values(asSchema(parameter['content']) ?? {})[0])?.['schema'];
  }
  // The request body's schema for the request's media type (the first the operation lists when none matches).
  const base = (type: string | undefined): string => (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const content = Object.entries(asSchema(deref(document, operation['requestBody'])?.['content']) ?? {});
  const body = asSchema((content.find(([type]) => base(type) === base(req.get('content-type'))) ?? content[0])?.[1])?.[
    'schema'
  ];
  const schemas = {
    query: places['query'],
    headers: places['header'],
    params: places['path'],
    cookies: places['cookie'],
  };
  const root = {
    properties: {
      ...Object.fromEntries(Object.entries(schemas).map(([place, properties]) => [place, { properties }])),
      body,
    },
  };
  const data = {
    body: req.body as unknown,
    query: req.query,
    headers: req.headers,
    params: req.params,
    cookies: (req as Request & { cookies?: unknown }).cookies,
  };
  return { document, root, data };
}

/**
 * The validator's request checks (its `requestMiddleware`), passing on a rejection with its errors
 * in the order intendedBranchFirst gives, as the validator's own BadRequest; anything else as it
 * is. The document (the bundled JSON file the validator reads too) is read the first time a
 * rejection needs it.
 */
export function namingIntendedBranch(check: RequestHandler, apiSpec: string): RequestHandler {
  let document: object | null | undefined;
  const load = (): object | undefined => {
    if (document === undefined) {
      try {
        document = asSchema(JSON.parse(readFileSync(apiSpec, 'utf8'))) ?? null;
      } catch {
        // Not JSON (a YAML document): errors stay in the validator's order.
        document = null;
      }
    }
    return document ?? undefined;
  };
  const reordered = (error: unknown, req: Request): unknown => {
    if (!(error instanceof OpenApiValidator.error.BadRequest)) return error;
    const rejected = error as {
      readonly path?: string;
      readonly message?: string;
      readonly errors?: readonly ValidatorErrorItem[];
    };
    const errors = rejected.errors ?? [];
    if (!errors.some((e) => COMPOSITE.has(keywordOf(e)) || !LOCATED.test(e.path ?? ''))) return error;
    const loaded = load();
    const context = loaded === undefined ? undefined : contextOf(loaded, req);
    const ordered = context === undefined ? errors : intendedBranchFirst(errors, context);
    if (ordered === errors) return error;
    const message = rejected.message === undefined ? {} : { message: rejected.message };
    return new OpenApiValidator.error.BadRequest({
      path: rejected.path ?? req.path,
      ...message,
      errors: ordered.map((e) => ({ ...e, path: e.path ?? '', message: e.message ?? '' })),
    });
  };
  return (req, res, next) => {
    const pass = (error?: unknown): void => next(error === undefined ? undefined : reordered(error, req));
    // The validator passes a rejection to `next`, or throws it once its document is loaded.
    try {
      return check(req, res, pass);
    } catch (error) {
      pass(error);
      return undefined;
    }
  };
}
