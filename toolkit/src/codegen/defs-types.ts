import type { TransformNodeOptions } from 'openapi-typescript';
import ts from 'typescript';

/**
 * openapi-typescript 7 types a schema's `$defs` as a required member of the object type it gives
 * the schema (openapi-ts/openapi-typescript#2664), so that a reference into it
 * (`components["schemas"]["Trip"]["$defs"]["Money"]`) resolves. `$defs` holds schemas, never part
 * of a value: a value of the schema has no such member, and a handler's response would not
 * compile. Given as openapi-typescript's `postTransform`, this makes that member optional (an
 * indexed access type reads an optional member's type as well, so every reference still
 * resolves); a property the schema names `$defs` in `properties` is left as it is typed.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value at a JSON pointer (`#/components/schemas/Trip`, RFC 6901 escapes) of `document`. */
function at(document: object, pointer: string): unknown {
  if (!pointer.startsWith('#')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, token) => (isObject(node) ? node[token] : undefined), document);
}

const isDefsMember = (member: ts.TypeElement): member is ts.PropertySignature =>
  ts.isPropertySignature(member) &&
  member.questionToken === undefined &&
  (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)) &&
  member.name.text === '$defs';

/** `type` with the `$defs` member of its object type optional, through unions, intersections and parentheses. */
function withOptionalDefs(type: ts.TypeNode): ts.TypeNode {
  if (ts.isTypeLiteralNode(type)) {
    if (!type.members.some(isDefsMember)) return type;
    return ts.factory.updateTypeLiteralNode(
      type,
      ts.factory.createNodeArray(
        type.members.map((member) =>
          isDefsMember(member)
            ? ts.factory.updatePropertySignature(
                member,
                member.modifiers,
                member.name,
                ts.factory.createToken(ts.SyntaxKind.QuestionToken),
                member.type,
              )
            : member,
        ),
      ),
    );
  }
  if (ts.isIntersectionTypeNode(type))
    return ts.factory.updateIntersectionTypeNode(type, ts.factory.createNodeArray(type.types.map(withOptionalDefs)));
  if (ts.isUnionTypeNode(type))
    return ts.factory.updateUnionTypeNode(type, ts.factory.createNodeArray(type.types.map(withOptionalDefs)));
  if (ts.isParenthesizedTypeNode(type)) return ts.factory.updateParenthesizedType(type, withOptionalDefs(type.type));
  return type;
}

/** openapi-typescript's `postTransform` for `document` (the document it is given). */
export function optionalDefs(
  document: object,
): (type: ts.TypeNode, options: TransformNodeOptions) => ts.TypeNode | undefined {
  return (type, options) => {
    const schema = options.path === undefined ? undefined : at(document, options.path);
    if (!isObject(schema) || !isObject(schema['$defs'])) return undefined;
    if (isObject(schema['properties']) && Object.hasOwn(schema['properties'], '$defs')) return undefined;
    return withOptionalDefs(type);
  };
}
