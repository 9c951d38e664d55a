/**
 * One line per change: the operation it touches, then api-smart-diff's own wording, with the
 * values where they are short. Where the library has no words (servers, security schemes), or
 * the wrong ones (a response's media type is called a request body's; a security requirement is
 * "some security details"), the line is ours.
 */
import { operationLabel, operationOf } from './locate.js';
import { isObject, type Json, type JsonPath } from './model.js';
import type { ClassifiedChange, Documents } from './rules.js';

const VERB = { add: 'Added', remove: 'Removed', replace: 'Replaced', rename: 'Renamed' } as const;
/** Keys whose values are prose: never quoted in a line. */
const PROSE = new Set(['description', 'summary', 'title']);
const SHORT = 48;
/** Keys the library's words already name as a status (`[Added] deprecated status`). */
const STATUSES = new Set(['deprecated', 'required']);

function short(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text.length <= SHORT ? text : undefined;
}

function requirementText(value: unknown, fallback: Json | undefined): string {
  const list = value === undefined ? fallback : value;
  if (!Array.isArray(list)) return 'none';
  if (list.length === 0) return 'none (anonymous)';
  return list
    .map((alternative) => {
      if (!isObject(alternative) || Object.keys(alternative).length === 0) return 'anonymous';
      return Object.entries(alternative)
        .map(([scheme, scopes]) =>
          Array.isArray(scopes) && scopes.length > 0 ? `${scheme} [${scopes.join(', ')}]` : scheme,
        )
        .join(' + ');
    })
    .join(' or ');
}

function documentSecurity(document: Json): Json | undefined {
  return isObject(document) ? document['security'] : undefined;
}

/** Our own words, where the library has none or the wrong ones; undefined to keep its own. */
function ourWords(change: ClassifiedChange, documents: Documents): string | undefined {
  const { path, action } = change;
  const verb = VERB[action];
  if (path[0] === 'security' && path.length === 1) {
    return `[${verb}] the document's security requirement (operations without their own): ${requirementText(change.before, undefined)} → ${requirementText(change.after, undefined)}`;
  }
  const operation = operationOf(path);
  if (operation !== undefined && operation.rest.length === 1 && operation.rest[0] === 'security') {
    const before = requirementText(change.before, documentSecurity(documents.before));
    const after = requirementText(change.after, documentSecurity(documents.after));
    return `[${verb}] security requirement: ${before} → ${after}`;
  }
  if (
    operation !== undefined &&
    operation.rest[0] === 'responses' &&
    operation.rest[2] === 'content' &&
    operation.rest.length === 4
  ) {
    return `[${verb}] content type ${String(operation.rest[3])} ${action === 'add' ? 'to' : 'of'} Response ${String(operation.rest[1])}`;
  }
  if (
    operation !== undefined &&
    operation.rest[0] === 'responses' &&
    operation.rest[2] === 'headers' &&
    operation.rest.length <= 4
  ) {
    const status = String(operation.rest[1]);
    if (operation.rest.length === 4)
      return `[${verb}] header \`${String(operation.rest[3])}\` ${action === 'add' ? 'to' : 'of'} Response ${status}`;
    const names = Object.keys(
      isObject(change.after) ? change.after : isObject(change.before) ? change.before : {},
    ).join(', ');
    return `[${verb}] headers (${names}) ${action === 'add' ? 'to' : 'of'} Response ${status}`;
  }
  if (
    operation !== undefined &&
    operation.rest[0] === 'parameters' &&
    operation.rest.length === 3 &&
    PROSE.has(String(operation.rest[2]))
  ) {
    const parameter = valueAt(action === 'add' ? documents.after : documents.before, path.slice(0, 5));
    const name = isObject(parameter)
      ? `${String(parameter['in'])} parameter \`${String(parameter['name'])}\``
      : `parameter ${String(operation.rest[1])}`;
    return `[${verb}] ${String(operation.rest[2])} of ${name}`;
  }
  if (path[0] === 'components' && path[1] === 'securitySchemes') {
    const [, , scheme, key, flow, flowKey, scope] = path;
    if (scheme === undefined) return `[${verb}] security schemes`;
    if (key === undefined) return `[${verb}] security scheme \`${String(scheme)}\``;
    if (key === 'flows' && flowKey === 'scopes' && scope !== undefined)
      return `[${verb}] scope \`${String(scope)}\` of security scheme \`${String(scheme)}\``;
    if (key === 'flows' && flow !== undefined && flowKey === undefined)
      return `[${verb}] flow \`${String(flow)}\` of security scheme \`${String(scheme)}\``;
    return `[${verb}] ${path.slice(3).join('.')} of security scheme \`${String(scheme)}\``;
  }
  const servers = path.indexOf('servers');
  if (servers >= 0 && (servers === 0 || path[0] === 'paths')) {
    const rest = path.slice(servers + 1);
    const entry = (document: Json): Json | undefined => valueAt(document, path.slice(0, servers + 2));
    const server = entry(action === 'remove' ? documents.before : documents.after);
    const url = isObject(server) && typeof server['url'] === 'string' ? ` ${server['url']}` : '';
    if (rest.length <= 1) return `[${verb}] server${rest.length === 0 ? 's' : url}`;
    if (rest[1] === 'url') return `[${verb}] URL of server ${String(rest[0])}`;
    return `[${verb}] ${rest.slice(1).join('.')} of server${url}`;
  }
  const example =
    operation === undefined
      ? -1
      : operation.rest.findIndex(
          (token, index) => (token === 'examples' || token === 'example') && operation.rest[index - 1] !== 'properties',
        );
  if (operation !== undefined && example >= 0) {
    const { rest } = operation;
    const where =
      rest[0] === 'responses'
        ? `Response ${String(rest[1])}${rest[2] === 'content' ? ` (${String(rest[3])})` : ''}`
        : rest[0] === 'requestBody'
          ? `Request Body (${String(rest[2])})`
          : rest.slice(0, example).join('.');
    const named = rest[example] === 'examples' && rest[example + 1] !== undefined;
    const inside = rest.slice(example + (named ? 2 : 1)).join('.');
    return `[${verb}] example${named ? ` \`${String(rest[example + 1])}\`` : ''} of ${where}${inside === '' ? '' : `: ${inside}`}`;
  }
  if (change.libraryDescription.trim() === '')
    return `[${verb}] ${path.slice(operation === undefined ? 0 : 3).join('.')}`;
  return undefined;
}

/** Scalars, and arrays of them (`type: [string, "null"]`), are quoted when short; objects never. */
function shortValue(value: unknown): string | undefined {
  const scalar = (item: unknown): boolean => item === null || typeof item !== 'object';
  return scalar(value) || (Array.isArray(value) && value.every(scalar)) ? short(value) : undefined;
}

/** The values, when short: `(64 → 32)`, `(+ "PREPAID")`, `(− "PHYSICAL")`, `(false)`, `(was 5)`. */
function values(change: ClassifiedChange): string {
  const key = change.path[change.path.length - 1];
  const parent = change.path[change.path.length - 2];
  if (typeof key === 'string' && (PROSE.has(key) || STATUSES.has(key))) return '';
  const before = shortValue(change.before);
  const after = shortValue(change.after);
  if (change.action === 'replace') return before !== undefined && after !== undefined ? ` (${before} → ${after})` : '';
  if (parent === 'enum' || parent === 'type') {
    if (change.action === 'add' && after !== undefined) return ` (+ ${after})`;
    if (change.action === 'remove' && before !== undefined) return ` (− ${before})`;
    return '';
  }
  if (parent === 'required') return '';
  if (change.action === 'add' && after !== undefined) return ` (${after})`;
  if (change.action === 'remove' && before !== undefined) return ` (was ${before})`;
  return '';
}

function valueAt(document: Json, path: JsonPath): Json | undefined {
  let node: Json | undefined = document;
  for (const token of path)
    node = Array.isArray(node) ? node[Number(token)] : isObject(node) ? node[String(token)] : undefined;
  return node;
}

export function describeChange(change: ClassifiedChange, documents: Documents): string {
  const ours = ourWords(change, documents);
  const words = ours ?? change.libraryDescription.trim();
  const withValues = words.includes('→') ? words : `${words}${values(change)}`;
  const label = operationLabel(change.path);
  if (label === undefined || withValues.includes(label)) return withValues;
  return `${label}: ${withValues}`;
}
