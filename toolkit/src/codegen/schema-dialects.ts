import type { OpenApiDocument } from './bundle.js';
import { GeneratorError, type Warning } from './generator-error.js';
import { token, walkDocument } from './walk.js';

/**
 * The schema dialects a document may declare (`jsonSchemaDialect` for all its schemas, `$schema`
 * for one schema and the schemas inside it), and each schema of an older JSON Schema draft read
 * as JSON Schema 2020-12, OpenAPI 3.1's dialect, which the validator, the types and the checker
 * read every schema by. A keyword of draft-04, -06, -07 or 2019-09 whose meaning 2020-12 writes
 * otherwise is rewritten to that form, with a warning naming its JSON pointer in the document as
 * written; the declaration is left out. A keyword 2020-12 has no form for, and a dialect that is
 * none of these, are rejected (GeneratorError) by name.
 */

type Json = Record<string, unknown>;

export type Dialect = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';
type OlderDialect = Exclude<Dialect, '2020-12'>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const q = (value: unknown): string => JSON.stringify(value);

const NAMES: Readonly<Record<OlderDialect, string>> = {
  'draft-04': 'JSON Schema draft-04',
  'draft-06': 'JSON Schema draft-06',
  'draft-07': 'JSON Schema draft-07',
  '2019-09': 'JSON Schema 2019-09',
};

/** Each dialect's meta-schema URI, with https and without its empty fragment. */
const URIS: ReadonlyMap<string, Dialect> = new Map([
  ['https://json-schema.org/draft-04/schema', 'draft-04'],
  ['https://json-schema.org/draft-06/schema', 'draft-06'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
]);
/** OpenAPI 3.1's own dialect (`…/dialect/base`, or a dated one): 2020-12 with OpenAPI's vocabulary. */
const OAS_DIALECTS = 'https://spec.openapis.org/oas/3.1/dialect/';

/** The dialect a meta-schema URI names (http or https, with or without `#`); undefined for any other. */
export function dialectOf(uri: unknown): Dialect | undefined {
  if (typeof uri !== 'string') return undefined;
  const normalized = uri.replace(/#$/, '').replace(/^http:\/\//i, 'https://');
  if (normalized.startsWith(OAS_DIALECTS)) return '2020-12';
  return URIS.get(normalized);
}

function declaredDialect(declared: unknown, pointer: string): Dialect {
  const dialect = dialectOf(declared);
  if (dialect === undefined)
    throw new GeneratorError(
      pointer,
      `the toolkit reads schemas as JSON Schema 2020-12, OpenAPI 3.1's dialect, and schemas of JSON Schema draft-04, draft-06, draft-07 and 2019-09 turned into it; this one declares ${q(declared)}`,
    );
  return dialect;
}

/** Keywords that annotate and assert nothing: what is kept beside a `$ref` of a draft that ignores the rest. */
const ANNOTATIONS = new Set([
  '$ref',
  'title',
  'description',
  'default',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'definitions',
  '$defs',
  'externalDocs',
  'xml',
  'discriminator',
]);

/** 2020-12's `$anchor` names (a plain-name fragment of the older drafts must be one to be written so). */
const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;

/** The keywords renamed in one schema: each new name, with the name the document writes. */
type Renames = Map<string, string>;

function rename(schema: Json, from: string, to: string, at: string): void {
  if (to in schema) {
    throw new GeneratorError(
      `${at}/${from}`,
      `${from} is read as ${to}, JSON Schema 2020-12's form, and this schema has ${to} too; write them as one ${to}`,
    );
  }
  schema[to] = schema[from];
  delete schema[from];
}

/**
 * A boolean `exclusiveMinimum`/`exclusiveMaximum`, as draft-04 (and OpenAPI 3.0) writes one, in
 * 2020-12's form: `minimum: 5, exclusiveMinimum: true` is `exclusiveMinimum: 5`; `false`, or
 * `true` without the bound it qualifies, asserts nothing and is left out. `form` says whose form
 * the boolean is, for the warning.
 */
export function numericExclusiveBounds(schema: Json, at: string, warnings: Warning[], form: string): void {
  for (const [exclusive, inclusive] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const flag = schema[exclusive];
    if (typeof flag !== 'boolean') continue;
    const bound = schema[inclusive];
    const pointer = `${at}/${exclusive}`;
    if (flag && typeof bound === 'number') {
      schema[exclusive] = bound;
      delete schema[inclusive];
      warnings.push({
        pointer,
        message: `${form}: ${inclusive}: ${bound} with ${exclusive}: true is read as ${exclusive}: ${bound}, JSON Schema 2020-12's form`,
      });
    } else if (!flag || bound === undefined) {
      delete schema[exclusive];
      warnings.push({
        pointer,
        message:
          bound === undefined
            ? `${form}: ${exclusive}: ${flag} without a ${inclusive} bounds nothing; left out`
            : `${form}: ${exclusive}: false leaves the ${inclusive} inclusive, as JSON Schema 2020-12 reads it alone; left out`,
      });
    }
  }
}

/**
 * `items` as a list of schemas, one per position (every draft before 2020-12), read as 2020-12's
 * `prefixItems`, and the `additionalItems` beside it as `items`; an `additionalItems` beside no
 * such list constrains nothing and is left out. Returns the renames made (new name → old name).
 */
export function prefixItems(schema: Json, at: string, warnings: Warning[], form: string): Renames {
  const renamed: Renames = new Map();
  if (Array.isArray(schema['items'])) {
    rename(schema, 'items', 'prefixItems', at);
    renamed.set('prefixItems', 'items');
    warnings.push({
      pointer: `${at}/items`,
      message: `${form}: a list of schemas, one for each position, is read as prefixItems, JSON Schema 2020-12's form`,
    });
    if ('additionalItems' in schema) {
      rename(schema, 'additionalItems', 'items', at);
      renamed.set('items', 'additionalItems');
      warnings.push({
        pointer: `${at}/additionalItems`,
        message: `${form}: the schema of the items past those listed is read as items, JSON Schema 2020-12's form`,
      });
    }
  } else if ('additionalItems' in schema) {
    delete schema['additionalItems'];
    warnings.push({
      pointer: `${at}/additionalItems`,
      message: `${form}: additionalItems applies only beside a list of items, and there is none: it constrains nothing; left out`,
    });
  }
  return renamed;
}

/** `$id` (or draft-04's `id`) with a fragment in 2020-12's form: `#name` is an `$anchor`, an empty fragment is dropped. */
function identifier(schema: Json, keyword: 'id' | '$id', at: string, warnings: Warning[], form: string): void {
  const value = schema[keyword];
  if (typeof value !== 'string') return;
  const pointer = `${at}/${keyword}`;
  const hash = value.indexOf('#');
  if (keyword === '$id' && hash === -1) return;
  const base = hash === -1 ? value : value.slice(0, hash);
  const fragment = hash === -1 ? '' : value.slice(hash + 1);
  delete schema[keyword];
  if (fragment !== '' && base === '' && ANCHOR.test(fragment) && !('$anchor' in schema)) {
    schema['$anchor'] = fragment;
    warnings.push({
      pointer,
      message: `${form}: ${keyword} ${q(value)} names this schema: read as $anchor ${q(fragment)}, JSON Schema 2020-12's form`,
    });
    return;
  }
  if (fragment !== '' || ('$id' in schema && keyword === 'id')) {
    throw new GeneratorError(
      pointer,
      fragment !== ''
        ? `${keyword} ${q(value)} has no JSON Schema 2020-12 form ($id takes no fragment; $anchor takes a plain name, alone); write it as $id or $anchor`
        : `${keyword} is read as $id, JSON Schema 2020-12's form, and this schema has $id too; write them as one $id`,
    );
  }
  if (base === '') {
    warnings.push({ pointer, message: `${form}: ${keyword} ${q(value)} changes no URI and names nothing; left out` });
    return;
  }
  schema['$id'] = base;
  warnings.push({
    pointer,
    message: `${form}: ${keyword} ${q(value)} is read as $id ${q(base)}, JSON Schema 2020-12's form`,
  });
}

/** `dependencies` as 2020-12's `dependentRequired` (a list of names) and `dependentSchemas` (a schema). */
function dependencies(schema: Json, at: string, warnings: Warning[], form: string): Renames {
  const renamed: Renames = new Map();
  const declared = schema['dependencies'];
  if (!isObject(declared)) return renamed;
  const pointer = `${at}/dependencies`;
  const required: Json = {};
  const schemas: Json = {};
  for (const [name, value] of Object.entries(declared)) {
    if (Array.isArray(value)) required[name] = value;
    else if (isObject(value) || typeof value === 'boolean') schemas[name] = value;
    else
      throw new GeneratorError(
        `${pointer}/${token(name)}`,
        `a dependency is a list of property names or a schema; this one is ${q(value)}`,
      );
  }
  for (const [keyword, members] of [
    ['dependentRequired', required],
    ['dependentSchemas', schemas],
  ] as const) {
    if (Object.keys(members).length === 0) continue;
    if (keyword in schema)
      throw new GeneratorError(
        pointer,
        `dependencies is read as ${keyword}, JSON Schema 2020-12's form, and this schema has ${keyword} too; write them as one ${keyword}`,
      );
    schema[keyword] = members;
  }
  delete schema['dependencies'];
  if (Object.keys(schemas).length > 0) renamed.set('dependentSchemas', 'dependencies');
  const read = [
    ...(Object.keys(required).length > 0 ? [`dependentRequired (${Object.keys(required).map(q).join(', ')})`] : []),
    ...(Object.keys(schemas).length > 0 ? [`dependentSchemas (${Object.keys(schemas).map(q).join(', ')})`] : []),
  ];
  warnings.push({ pointer, message: `${form}: read as ${read.join(' and ')}, JSON Schema 2020-12's forms` });
  return renamed;
}

/** Rewrites one schema of `dialect` to 2020-12's forms; returns the keywords renamed (new name → old name). */
function toDialect2020(schema: Json, at: string, dialect: OlderDialect, warnings: Warning[]): Renames {
  const form = NAMES[dialect];
  const renamed: Renames = new Map();
  // Before 2019-09 a schema with `$ref` is that reference alone; 2020-12 applies the keywords beside it too.
  if (dialect !== '2019-09' && typeof schema['$ref'] === 'string') {
    const ignored = Object.keys(schema).filter((keyword) => !ANNOTATIONS.has(keyword) && !keyword.startsWith('x-'));
    for (const keyword of ignored) delete schema[keyword];
    if (ignored.length > 0)
      warnings.push({
        pointer: at,
        message: `${form} ignores the keywords beside $ref, and JSON Schema 2020-12 applies them: ${ignored.join(', ')} left out`,
      });
  }
  if (dialect === 'draft-04') identifier(schema, 'id', at, warnings, form);
  else if (dialect !== '2019-09') identifier(schema, '$id', at, warnings, form);
  numericExclusiveBounds(schema, at, warnings, form);
  if (isObject(schema['definitions'])) {
    rename(schema, 'definitions', '$defs', at);
    renamed.set('$defs', 'definitions');
    warnings.push({
      pointer: `${at}/definitions`,
      message: `${form}: read as $defs, JSON Schema 2020-12's name for it (references into it follow)`,
    });
  }
  for (const [to, from] of dependencies(schema, at, warnings, form)) renamed.set(to, from);
  for (const [to, from] of prefixItems(schema, at, warnings, form)) renamed.set(to, from);
  if (dialect === '2019-09') {
    for (const keyword of ['$recursiveRef', '$recursiveAnchor'])
      if (keyword in schema)
        throw new GeneratorError(
          `${at}/${keyword}`,
          `${keyword} (JSON Schema 2019-09) has no exact JSON Schema 2020-12 form ($dynamicRef and $dynamicAnchor resolve otherwise); write the reference as a $ref`,
        );
  }
  return renamed;
}

/** A schema visited: where it is now and in the document as written, its dialect, and what of it was renamed. */
interface Visited {
  readonly pointer: string;
  readonly written: string;
  readonly dialect: Dialect;
  readonly renamed: Renames;
}

/** Where a schema inside `parent` is in the document as written: the keyword that holds it, as it was named there. */
function writtenPointer(parent: Visited, pointer: string): string {
  const rest = pointer.slice(parent.pointer.length + 1);
  const slash = rest.indexOf('/');
  const keyword = slash === -1 ? rest : rest.slice(0, slash);
  return `${parent.written}/${parent.renamed.get(keyword) ?? keyword}${slash === -1 ? '' : rest.slice(slash)}`;
}

/** A local reference (`#/…`) through the keywords renamed on its way, as the document now has them. */
function followRenames(ref: string, renamedAt: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  if (!ref.startsWith('#/')) return ref;
  let at = '#';
  let changed = false;
  const tokens = ref
    .slice(2)
    .split('/')
    .map((written) => {
      let token = written;
      try {
        token = decodeURIComponent(written);
      } catch {
        // A token that is not percent-encoding is read as it is.
      }
      const renamed = renamedAt.get(at)?.get(token);
      at = `${at}/${renamed ?? token}`;
      if (renamed === undefined) return written;
      changed = true;
      return renamed;
    });
  return changed ? `#/${tokens.join('/')}` : ref;
}

/**
 * Reads every schema of `document` (changed in place) as JSON Schema 2020-12: a schema under
 * `jsonSchemaDialect` or `$schema` of draft-04, -06, -07 or 2019-09 has its keywords rewritten to
 * their 2020-12 forms, and every local `$ref` into a renamed keyword follows it. Returns a warning
 * for each change; throws GeneratorError for a dialect it does not know or a keyword without a
 * 2020-12 form.
 */
export function readSchemaDialects(document: OpenApiDocument): Warning[] {
  const warnings: Warning[] = [];
  const root = document as Json;
  let documentDialect: Dialect = '2020-12';
  if (root['jsonSchemaDialect'] !== undefined) {
    documentDialect = declaredDialect(root['jsonSchemaDialect'], '#/jsonSchemaDialect');
    if (documentDialect !== '2020-12') {
      warnings.push({
        pointer: '#/jsonSchemaDialect',
        message: `declares ${NAMES[documentDialect]} for the document's schemas: they are read in JSON Schema 2020-12's forms (OpenAPI 3.1's dialect), each change named, and the declaration is left out`,
      });
      delete root['jsonSchemaDialect'];
    }
  }
  // Keyed by a schema's pointer as the document now has it: old name → new name.
  const renamedAt = new Map<string, Map<string, string>>();
  const ancestors: Visited[] = [];
  walkDocument(document, {
    schema(schema, pointer) {
      // Schemas come in document order, each before those inside it.
      while (ancestors.length > 0 && !pointer.startsWith(`${ancestors[ancestors.length - 1]?.pointer ?? ''}/`))
        ancestors.pop();
      const parent = ancestors[ancestors.length - 1];
      const written = parent === undefined ? pointer : writtenPointer(parent, pointer);
      let dialect = parent?.dialect ?? documentDialect;
      if (schema['$schema'] !== undefined) {
        dialect = declaredDialect(schema['$schema'], `${written}/$schema`);
        if (dialect !== '2020-12') {
          warnings.push({
            pointer: `${written}/$schema`,
            message: `declares ${NAMES[dialect]} for this schema: it is read in JSON Schema 2020-12's forms, each change named, and the declaration is left out`,
          });
          delete schema['$schema'];
        }
      }
      const renamed =
        dialect === '2020-12' ? new Map<string, string>() : toDialect2020(schema, written, dialect, warnings);
      ancestors.push({ pointer, written, dialect, renamed });
      if (renamed.size > 0) renamedAt.set(pointer, new Map([...renamed].map(([to, from]) => [from, to])));
    },
  });
  if (renamedAt.size > 0) {
    walkDocument(document, {
      schema(schema) {
        if (typeof schema['$ref'] === 'string') schema['$ref'] = followRenames(schema['$ref'], renamedAt);
        const mapping = isObject(schema['discriminator']) ? schema['discriminator']['mapping'] : undefined;
        if (isObject(mapping))
          for (const [name, ref] of Object.entries(mapping))
            if (typeof ref === 'string') mapping[name] = followRenames(ref, renamedAt);
      },
    });
  }
  return warnings;
}
