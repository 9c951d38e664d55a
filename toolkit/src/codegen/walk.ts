import { isReference } from '../runtime/openapi-refs.js';
import type { OpenApiDocument } from './bundle.js';
import { HTTP_METHODS } from './http-methods.js';

/**
 * Visits the Schema, Parameter, Header and Media Type Objects of a bundled document where the
 * document writes them, each once, at its own JSON pointer: under paths, webhooks and components,
 * inside operations, request bodies, responses, callbacks and schemas. A `$ref` is not followed
 * (what it names is visited where it is written).
 */

type Json = Record<string, unknown>;

export interface Visitor {
  /**
   * A Schema Object, and each schema inside it, each before those inside it: they are read from it
   * once the visit returns, so a visitor may rename the keyword that holds them.
   */
  readonly schema?: (schema: Json, pointer: string) => void;
  /** A Parameter or a Header Object (`in` tells them apart). */
  readonly parameter?: (holder: Json, pointer: string) => void;
  /** A Media Type Object of a `content` map, with its media type. */
  readonly media?: (media: Json, pointer: string, mediaType: string) => void;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A key as a reference token of a JSON pointer (RFC 6901). */
export const token = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The keywords of JSON Schema whose value is a schema, a list of schemas (`items` as older drafts wrote it too), or a map of them. */
const ONE_SCHEMA = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
];
const SCHEMA_LISTS = ['prefixItems', 'allOf', 'anyOf', 'oneOf', 'items'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

export function walkDocument(document: OpenApiDocument, visitor: Visitor): void {
  // The members of a map written there, not referenced (a Reference Object is visited where it leads).
  const each = (map: unknown, at: string, visit: (value: Json, pointer: string, key: string) => void): void => {
    if (!isObject(map)) return;
    for (const [key, value] of Object.entries(map))
      if (isObject(value) && !isReference(value)) visit(value, `${at}/${token(key)}`, key);
  };
  // A schema with a `$ref` is still a schema of its own (3.1 lets other keywords sit beside it).
  const schemas = (map: unknown, at: string): void => {
    if (isObject(map)) for (const [key, value] of Object.entries(map)) schema(value, `${at}/${token(key)}`);
  };
  const schema = (node: unknown, at: string): void => {
    if (!isObject(node)) return;
    visitor.schema?.(node, at);
    for (const keyword of ONE_SCHEMA) if (isObject(node[keyword])) schema(node[keyword], `${at}/${keyword}`);
    for (const keyword of SCHEMA_LISTS) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach((item, index) => schema(item, `${at}/${keyword}/${index}`));
    }
    for (const keyword of SCHEMA_MAPS) schemas(node[keyword], `${at}/${keyword}`);
  };
  const content = (node: Json, at: string): void => {
    each(node['content'], `${at}/content`, (media, pointer, mediaType) => {
      schema(media['schema'], `${pointer}/schema`);
      each(media['encoding'], `${pointer}/encoding`, (encoding, encodingAt) =>
        each(encoding['headers'], `${encodingAt}/headers`, parameter),
      );
      visitor.media?.(media, pointer, mediaType);
    });
  };
  const parameter = (holder: Json, at: string): void => {
    schema(holder['schema'], `${at}/schema`);
    content(holder, at);
    visitor.parameter?.(holder, at);
  };
  const parameters = (list: unknown, at: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((item, index) => {
      if (isObject(item) && !isReference(item)) parameter(item, `${at}/${index}`);
    });
  };
  const response = (node: Json, at: string): void => {
    each(node['headers'], `${at}/headers`, parameter);
    content(node, at);
  };
  const callback = (node: Json, at: string): void => each(node, at, pathItem);
  const operation = (node: Json, at: string): void => {
    parameters(node['parameters'], `${at}/parameters`);
    if (isObject(node['requestBody']) && !isReference(node['requestBody']))
      content(node['requestBody'], `${at}/requestBody`);
    each(node['responses'], `${at}/responses`, response);
    each(node['callbacks'], `${at}/callbacks`, callback);
  };
  function pathItem(node: Json, at: string): void {
    parameters(node['parameters'], `${at}/parameters`);
    for (const method of HTTP_METHODS) if (isObject(node[method])) operation(node[method], `${at}/${method}`);
  }

  each(document.paths, '#/paths', pathItem);
  each(document['webhooks'], '#/webhooks', pathItem);
  const components = isObject(document.components) ? document.components : {};
  schemas(components['schemas'], '#/components/schemas');
  each(components['parameters'], '#/components/parameters', parameter);
  each(components['headers'], '#/components/headers', parameter);
  each(components['requestBodies'], '#/components/requestBodies', content);
  each(components['responses'], '#/components/responses', response);
  each(components['pathItems'], '#/components/pathItems', pathItem);
  each(components['callbacks'], '#/components/callbacks', callback);
}
