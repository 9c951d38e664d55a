// The lint rules every contract-first API served by the toolkit should keep, as a Redocly plugin
// (id `contract-first`). contract-first.yaml beside it turns them on with Redocly's `minimal`
// ruleset; a project's redocly.yaml extends that file and may raise or lower any severity.
// Rules that say how to fix a finding take a `fix` option, the text a project's own conventions
// give (`$ref` of its shared Error response, say).
import { readdirSync } from 'node:fs';
import path from 'node:path';

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const operationName = (operation, ctx) => operation.operationId ?? `${String(ctx.key).toUpperCase()} operation`;
const withFix = (message, options, fallback) => `${message}: ${options?.fix ?? fallback}`;
/** A webhook's or a callback's operation is a request the server sends, not one it responds to. */
const isSentByServer = (ctx) =>
  ctx.location.pointer.startsWith('#/webhooks/') || ctx.location.pointer.includes('/callbacks/');

// ---------------------------------------------------------------------------------------------
// Responses the toolkit's server sends before a handler runs: the document should declare them.

/**
 * An operation that takes input (parameters, its own or its path's, or a request body) declares
 * 400: the server rejects a request off the contract with 400 before its handler runs.
 */
function Operation400ForInput(options) {
  return {
    PathItem: {
      Operation(operation, ctx, parents) {
        if (isSentByServer(ctx)) return;
        const takesInput =
          (operation.parameters ?? []).length > 0 ||
          (parents.PathItem?.parameters ?? []).length > 0 ||
          operation.requestBody !== undefined;
        if (!takesInput || operation.responses?.['400'] !== undefined || operation.responses?.['4XX'] !== undefined)
          return;
        ctx.report({
          message: withFix(
            `Operation ${operationName(operation, ctx)} takes input (parameters or a request body) but declares no 400 response, which the server sends for a request off the contract`,
            options,
            "add a `'400'` response with the document's error body",
          ),
          location: ctx.location.child(['responses']).key(),
        });
      },
    },
  };
}

/** An operation that needs credentials (its own security, else the document's) declares 401. */
function Operation401WhenSecured(options) {
  let documentSecurity = [];
  return {
    Root: {
      enter(root) {
        documentSecurity = root.security ?? [];
      },
    },
    Operation(operation, ctx) {
      if (isSentByServer(ctx)) return;
      const security = operation.security ?? documentSecurity;
      // `{}` among the alternatives: the credentials are optional.
      if (security.length === 0 || security.some((requirement) => Object.keys(requirement ?? {}).length === 0)) return;
      if (operation.responses?.['401'] !== undefined || operation.responses?.['4XX'] !== undefined) return;
      const schemes = [...new Set(security.flatMap((requirement) => Object.keys(requirement ?? {})))];
      ctx.report({
        message: withFix(
          `Operation ${operationName(operation, ctx)} is secured (${schemes.join(', ')}) but declares no 401 response, which the server sends for a request without valid credentials`,
          options,
          "add a `'401'` response with the document's error body",
        ),
        location: ctx.location.child(['responses']).key(),
      });
    },
  };
}

/**
 * An operation that takes a request body declares 415: the server rejects a body of a media type
 * the operation does not take with 415 before its handler runs.
 */
function Operation415ForBody(options) {
  return {
    Operation(operation, ctx) {
      if (isSentByServer(ctx) || operation.requestBody === undefined) return;
      if (operation.responses?.['415'] !== undefined || operation.responses?.['4XX'] !== undefined) return;
      ctx.report({
        message: withFix(
          `Operation ${operationName(operation, ctx)} takes a request body but declares no 415 response, which the server sends for a body of a media type it does not take`,
          options,
          "add a `'415'` response with the document's error body",
        ),
        location: ctx.location.child(['responses']).key(),
      });
    },
  };
}

/** Whether a parameter, or its schema, gives a value to send: an example, a default, an enum or a constant. */
function givesValue(parameter, resolve) {
  if (parameter.example !== undefined || Object.keys(parameter.examples ?? {}).length > 0) return true;
  const schema = resolve(parameter.schema) ?? {};
  return (
    schema.example !== undefined ||
    (Array.isArray(schema.examples) && schema.examples.length > 0) ||
    schema.default !== undefined ||
    (Array.isArray(schema.enum) && schema.enum.length > 0) ||
    schema.const !== undefined
  );
}

/**
 * A path parameter gives an example (its own, or its schema's example, default, enum or constant):
 * contract tests and `contract-first check` otherwise draw a value from its schema, which names
 * nothing that exists, so the operation is only ever tested with a 404.
 */
function PathParameterExample(options) {
  return {
    Parameter(parameter, ctx) {
      if (parameter.in !== 'path' || givesValue(parameter, (value) => (value?.$ref ? ctx.resolve(value).node : value)))
        return;
      ctx.report({
        message: withFix(
          `Path parameter ${parameter.name} has no example: tests can only draw a value from its schema, which names nothing that exists`,
          options,
          'add an `example` of a value that exists',
        ),
        location: ctx.location.key(),
      });
    },
  };
}

/**
 * Every security scheme a requirement names is defined in components.securitySchemes. (Redocly's
 * security-defined also asks every operation for security, which a public API rightly has not.)
 */
function SecuritySchemeDefined() {
  let defined = new Set();
  const check = (requirements, ctx) => {
    (requirements ?? []).forEach((requirement, index) => {
      for (const name of Object.keys(requirement ?? {})) {
        if (defined.has(name)) continue;
        ctx.report({
          message: `The security requirement names "${name}", which components.securitySchemes does not define: define it there, or correct the name.`,
          location: ctx.location.child(['security', index, name]).key(),
        });
      }
    });
  };
  return {
    Root: {
      enter(root, ctx) {
        defined = new Set(Object.keys(root.components?.securitySchemes ?? {}));
        check(root.security, ctx);
      },
    },
    Operation(operation, ctx) {
      check(operation.security, ctx);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Schemas no value can satisfy.

/** The property names a schema declares, through `$ref`s and its own `allOf` members. */
function declaredProperties(ctx, schema, seen = new Set()) {
  const node = ctx.resolve(schema).node;
  if (!isObject(node) || seen.has(node)) return [];
  seen.add(node);
  return [
    ...Object.keys(isObject(node.properties) ? node.properties : {}),
    ...(Array.isArray(node.allOf) ? node.allOf.flatMap((member) => declaredProperties(ctx, member, seen)) : []),
  ];
}

/**
 * A member of an `allOf` closed with `additionalProperties: false` (or `unevaluatedProperties:
 * false`, which within a member sees only the member's own properties) rejects every property the
 * other members declare: no object satisfies the composition, and every response with one fails
 * validation. The composition is closed where it composes, with `unevaluatedProperties: false`.
 */
function ClosedAllOfMember() {
  return {
    Schema(schema, ctx) {
      if (!Array.isArray(schema.allOf) || schema.allOf.length < 2) return;
      schema.allOf.forEach((member, index) => {
        const resolved = ctx.resolve(member).node;
        if (
          !isObject(resolved) ||
          (resolved.additionalProperties !== false && resolved.unevaluatedProperties !== false)
        )
          return;
        const own = new Set(Object.keys(isObject(resolved.properties) ? resolved.properties : {}));
        const patterns = Object.keys(isObject(resolved.patternProperties) ? resolved.patternProperties : {}).map(
          (pattern) => new RegExp(pattern, 'u'),
        );
        const others = [
          ...Object.keys(isObject(schema.properties) ? schema.properties : {}),
          ...schema.allOf.flatMap((sibling, at) => (at === index ? [] : declaredProperties(ctx, sibling))),
        ];
        const rejected = [...new Set(others)].filter(
          (name) => !own.has(name) && !patterns.some((pattern) => pattern.test(name)),
        );
        if (rejected.length === 0) return;
        const keyword = resolved.additionalProperties === false ? 'additionalProperties' : 'unevaluatedProperties';
        ctx.report({
          message:
            `Member ${index} of this allOf is closed (${keyword}: false), so it rejects ${rejected.map((name) => `\`${name}\``).join(', ')}, ` +
            'which the rest of the composition declares: no object satisfies it. Leave the member open and close the composition ' +
            'with `unevaluatedProperties: false` beside its allOf.',
          location: ctx.location.child(['allOf', index]),
        });
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A value both required and defaulted.

const requiredWithDefault = (what) =>
  `${what} is required and has a default: the validator writes the default into a request that leaves it out, so the server ` +
  'takes such requests, while clients read that they must send it. Drop `required`, or the default.';

/**
 * A required parameter, or a required property, whose schema has a `default`: the document says
 * both that a request must carry it and what is assumed when it does not. express-openapi-validator
 * fills the default in before it checks `required`, so the server takes the request without it.
 */
function RequiredWithDefault() {
  const hasDefault = (ctx, schema) => {
    const node = schema === undefined ? undefined : ctx.resolve(schema).node;
    return isObject(node) && 'default' in node;
  };
  return {
    Parameter(parameter, ctx) {
      if (parameter.required !== true || !hasDefault(ctx, parameter.schema)) return;
      ctx.report({
        message: requiredWithDefault(`Parameter \`${parameter.name}\``),
        location: ctx.location.child(['required']),
      });
    },
    Schema(schema, ctx) {
      if (!Array.isArray(schema.required) || !isObject(schema.properties)) return;
      schema.required.forEach((name, index) => {
        if (!hasDefault(ctx, schema.properties[name])) return;
        ctx.report({
          message: requiredWithDefault(`Property \`${name}\``),
          location: ctx.location.child(['required', index]),
        });
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Every file of the document is part of it.

const PART_FOLDERS = ['paths', 'components'];

function yamlFilesUnder(folder) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return yamlFilesUnder(file);
    return /\.ya?ml$/.test(entry.name) ? [file] : [];
  });
}

/**
 * Every YAML file under `paths/` and `components/` beside the root document is reached from it
 * through `$ref`s. A file nothing references is reported at the root's `paths` or `components`,
 * where a reference to it would start.
 */
function FileReferenced() {
  const reached = new Set();
  return {
    ref(_node, _ctx, resolved) {
      if (resolved.location) reached.add(path.resolve(resolved.location.source.absoluteRef));
    },
    Root: {
      leave(root, ctx) {
        const rootFile = path.resolve(ctx.location.source.absoluteRef);
        const rootDirectory = path.dirname(rootFile);
        for (const folder of PART_FOLDERS) {
          for (const file of yamlFilesUnder(path.join(rootDirectory, folder))) {
            if (reached.has(file)) continue;
            const relative = path.relative(rootDirectory, file).split(path.sep).join('/');
            ctx.report({
              message:
                `File ${relative} is part of no document: nothing reached from ${path.basename(rootFile)} references it. ` +
                `Reference it where it belongs (from ${path.basename(rootFile)}: \`$ref: ${relative}\`), or delete it.`,
              location: ctx.location.child([root[folder] === undefined ? 'openapi' : folder]).key(),
            });
          }
        }
      },
    },
  };
}

export default function contractFirstRules() {
  return {
    id: 'contract-first',
    rules: {
      oas3: {
        'operation-400-for-input': Operation400ForInput,
        'operation-401-when-secured': Operation401WhenSecured,
        'operation-415-for-body': Operation415ForBody,
        'path-parameter-example': PathParameterExample,
        'security-scheme-defined': SecuritySchemeDefined,
        'closed-allof-member': ClosedAllOfMember,
        'required-with-default': RequiredWithDefault,
        'file-referenced': FileReferenced,
      },
    },
  };
}
