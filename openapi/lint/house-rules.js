// The house rules of this service's contract that neither Redocly's configurable rules nor the
// toolkit's (toolkit/lint/contract-rules.js) say, as a Redocly plugin: redocly.yaml lists
// it under `plugins` and sets each rule's severity. README, "House rules (lint)", lists every rule
// with its message and the fixture that makes it fire.
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const isRef = (value) => isObject(value) && typeof value.$ref === 'string';

/**
 * A child of a node the walker visited, through its $ref if it is one: `{ node, location }`, or
 * undefined when it is absent or its $ref leads nowhere (no-unresolved-refs reports that).
 */
function childOf(ctx, parent, key) {
  const raw = parent?.node?.[key];
  if (raw === undefined) return undefined;
  const location = parent.location.child([key]);
  const child = isRef(raw) ? ctx.resolve(raw, location.source.absoluteRef) : { node: raw, location };
  return child.node === undefined || child.location === undefined ? undefined : child;
}

const operationName = (operation, ctx) => operation.operationId ?? `${String(ctx.key).toUpperCase()} operation`;
const isJson = (mediaType) => /^application\/(?:[\w.+-]+\+)?json(?:;|$)/i.test(mediaType);

// ---------------------------------------------------------------------------------------------
// Responses an operation must declare.

const FIX_403 = "`'403': $ref: ../components/responses/Forbidden.yaml`";

/**
 * An operation that needs credentials (its own security, else the document's) responds with 403: every
 * credential of this service carries scopes, and one without the operation's scope is rejected.
 * (Its 401 is contract-first/operation-401-when-secured's, toolkit/lint/contract-rules.js.)
 */
function Operation403WhenSecured() {
  let documentSecurity = [];
  return {
    Root: {
      enter(root) {
        documentSecurity = root.security ?? [];
      },
    },
    Operation(operation, ctx) {
      const security = operation.security ?? documentSecurity;
      const schemes = [...new Set(security.flatMap((requirement) => Object.keys(requirement ?? {})))];
      if (schemes.length === 0 || operation.responses?.['403'] !== undefined) return;
      ctx.report({
        message: `Operation ${operationName(operation, ctx)} is secured (${schemes.join(', ')}) but declares no 403 response: add ${FIX_403}.`,
        location: ctx.location.child(['responses']).key(),
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Closed object schemas.

const typesOf = (schema) => (Array.isArray(schema.type) ? schema.type : [schema.type]);
const isObjectSchema = (schema) => typesOf(schema).includes('object') || isObject(schema.properties);

/**
 * Every object schema rejects undeclared properties: `additionalProperties: false` or
 * `unevaluatedProperties: false`. Composition with `allOf`: its members are parts, and the
 * schema that composes them is the object, closed with `unevaluatedProperties: false` (the one
 * keyword that sees the properties its members declare). A part is left open, since closing it
 * would reject its siblings' properties. `oneOf` and `anyOf` members are alternatives, each an
 * object of its own, closed like any other.
 */
function SchemaClosed() {
  const parts = new Set();
  const open = [];
  let rootDirectory = '';
  const where = (location) =>
    `${path.relative(rootDirectory, location.source.absoluteRef).split(path.sep).join('/')}${location.pointer === '#/' ? '' : location.pointer}`;
  return {
    Root: {
      enter(_root, ctx) {
        rootDirectory = path.dirname(ctx.location.source.absoluteRef);
      },
      leave(_root, ctx) {
        for (const { schema, location, message } of open) {
          if (!parts.has(schema)) ctx.report({ message, location });
        }
      },
    },
    Schema(schema, ctx) {
      const members = Array.isArray(schema.allOf) ? schema.allOf.map((member) => ctx.resolve(member).node).filter(isObject) : [];
      members.forEach((member) => parts.add(member));
      if (members.some(isObjectSchema)) {
        if (schema.unevaluatedProperties === false) return;
        open.push({
          schema,
          location: ctx.location.child(['allOf']).key(),
          message:
            `Schema ${where(ctx.location)} composes objects with allOf but is open: add \`unevaluatedProperties: false\` to it ` +
            '(not `additionalProperties: false`, which would reject the properties of its members; the members stay open, as parts).',
        });
      } else if (isObjectSchema(schema) && schema.additionalProperties !== false && schema.unevaluatedProperties !== false) {
        open.push({
          schema,
          location: ctx.location.child([schema.type === undefined ? 'properties' : 'type']).key(),
          message:
            `Object schema ${where(ctx.location)} is open: add \`additionalProperties: false\` ` +
            '(or `unevaluatedProperties: false`) so that undeclared properties are rejected.',
        });
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Examples of JSON bodies, present and valid.

function createAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormatsModule.default(ajv);
  // int64 values must stay exact in JSON: safe integers only.
  ajv.addFormat('int64', { type: 'number', validate: (n) => Number.isSafeInteger(n) });
  ajv.addFormat('int32', { type: 'number', validate: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  return ajv;
}

const DATA_KEYWORDS = new Set(['example', 'examples', 'enum', 'const', 'default']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);

/**
 * The schema as one standalone JSON Schema for Ajv: every `$ref` (to another file or within
 * one) is resolved through Redocly's resolved document and moved under `$defs`, so references
 * that loop stay references.
 */
function standalone(ctx, schema, from) {
  const defs = {};
  const names = new Map();
  const rewrite = (node, base, isMap = false) => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, base));
    if (!isObject(node)) return node;
    const copy = {};
    for (const [key, value] of Object.entries(node)) {
      if (!isMap && key === '$ref' && typeof value === 'string') {
        const target = ctx.resolve(node, base);
        if (target.location === undefined) throw new Error(`cannot resolve ${value}`);
        const id = target.location.absolutePointer;
        if (!names.has(id)) {
          names.set(id, `ref${names.size}`);
          defs[names.get(id)] = rewrite(target.node, target.location.source.absoluteRef);
        }
        copy.$ref = `#/$defs/${names.get(id)}`;
      } else {
        copy[key] = !isMap && DATA_KEYWORDS.has(key) ? value : rewrite(value, base, !isMap && SCHEMA_MAPS.has(key));
      }
    }
    return copy;
  };
  const root = rewrite(schema, from);
  return { ...root, $defs: { ...root.$defs, ...defs } };
}

/**
 * Every request body and every success (2xx) response with a JSON body has an example, and every
 * example of an operation's bodies validates against its schema (JSON Schema 2020-12, formats
 * checked, int64 a safe integer).
 */
function JsonBodyExample() {
  const ajv = createAjv();
  const compiled = new WeakMap();
  const validatorFor = (ctx, schema) => {
    if (!compiled.has(schema.node)) {
      compiled.set(schema.node, ajv.compile(standalone(ctx, schema.node, schema.location.source.absoluteRef)));
    }
    return compiled.get(schema.node);
  };
  return {
    Operation(operation, ctx) {
      const name = operationName(operation, ctx);
      const self = { node: operation, location: ctx.location };
      const responses = childOf(ctx, self, 'responses');
      const bodies = [
        { what: 'request body', holder: childOf(ctx, self, 'requestBody'), required: true },
        ...Object.keys(responses?.node ?? {}).map((status) => ({
          what: `${status} response`,
          holder: childOf(ctx, responses, status),
          required: /^2(\d\d|XX)$/i.test(status),
        })),
      ];
      for (const { what, holder, required } of bodies) {
        const content = holder && childOf(ctx, holder, 'content');
        for (const mediaType of Object.keys(content?.node ?? {})) {
          const media = childOf(ctx, content, mediaType);
          if (media === undefined) continue;
          const named = childOf(ctx, media, 'examples');
          const examples = [
            ...(media.node.example === undefined ? [] : [{ label: 'example', value: media.node.example, location: media.location.child(['example']) }]),
            ...Object.keys(named?.node ?? {}).flatMap((key) => {
              const example = childOf(ctx, named, key);
              return example === undefined ? [] : [{ label: `example \`${key}\``, value: example.node.value, location: example.location.child(['value']) }];
            }),
          ];
          if (examples.length === 0 && required && isJson(mediaType)) {
            ctx.report({
              message:
                `Operation ${name}: the ${what} (${mediaType}) has no example: add \`examples:\` under \`${mediaType}\` ` +
                'with a named example, summarised, whose `value` validates against the schema.',
              location: media.location.key(),
            });
          }
          const schema = childOf(ctx, media, 'schema');
          if (schema === undefined) continue;
          let validate;
          try {
            validate = validatorFor(ctx, schema);
          } catch (error) {
            ctx.report({ message: `Operation ${name}: the schema of the ${what} (${mediaType}) cannot be compiled: ${error.message}.`, location: schema.location });
            continue;
          }
          for (const { label, value, location } of examples) {
            if (value === undefined || validate(value)) continue;
            const errors = validate.errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
            ctx.report({
              message: `Operation ${name}: ${label} of the ${what} (${mediaType}) does not match its schema (${errors}): correct the example, or the schema.`,
              location,
            });
          }
        }
      }
    },
  };
}

export default function houseRules() {
  return {
    id: 'house',
    rules: {
      oas3: {
        'operation-403-when-secured': Operation403WhenSecured,
        'schema-closed': SchemaClosed,
        'json-body-example': JsonBodyExample,
      },
    },
  };
}
