/**
 * Names for what the document names freely: an operationId may be kebab-case, snake_case, dotted,
 * PascalCase or hold spaces, and an operation may have none. The original operationId stays the
 * key of the route table and of openapi-typescript's `operations`; these give the handler a
 * TypeScript identifier, and an operation without an operationId its key.
 */

/** Words TypeScript reserves, or that a module cannot export as a function name. */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function ' +
    'if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'as implements interface let package private protected public static yield await any boolean number string symbol ' +
    'never unknown object undefined arguments eval'
  ).split(' '),
);

/** The words of a name: split at anything not a letter or digit, and where lower case meets upper. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
}

const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * A stable camelCase identifier for a name: `get-board` → `getBoard`, `cookies_standard` →
 * `cookiesStandard`, `pets.list` → `petsList`, `List pets` → `listPets`, `GetPets` → `getPets`.
 * Letters outside ASCII are dropped; a name left with no letter, or starting with a digit, gets the
 * prefix `operation`; a reserved word gets the suffix `Operation`.
 */
export function toIdentifier(name: string): string {
  const parts = words(name);
  if (parts.length === 0) return 'operation';
  const [first = '', ...rest] = parts;
  const lowered =
    /^[A-Z][a-z]/.test(first) || /^[A-Z]$/.test(first) ? first.charAt(0).toLowerCase() + first.slice(1) : first;
  const camel = lowered + rest.map(capital).join('');
  if (/^[0-9]/.test(camel)) return `operation${capital(camel)}`;
  return RESERVED.has(camel) ? `${camel}Operation` : camel;
}

/**
 * The operationId of an operation that has none: the method, then each path segment in PascalCase,
 * a template segment as `By` and its name. `GET /pets/{petId}` → `getPetsByPetId`,
 * `POST /pets/{id}/photos` → `postPetsByIdPhotos`, `GET /` → `get`.
 */
export function derivedOperationId(method: string, path: string): string {
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/\{([^}]*)\}/g, (_match, name: string) => ` By ${name} `))
    .flatMap((segment) => words(segment).map(capital));
  return `${method.toLowerCase()}${segments.join('')}`;
}
