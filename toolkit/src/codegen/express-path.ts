/**
 * OpenAPI path templates (`/pets/{pet-id}`, `/files/{name}.{ext}`) and the paths of server URLs as
 * Express 5 paths (path-to-regexp 8): each `{name}` of a template becomes a parameter, quoted when
 * the name is not an identifier (`:"pet-id"`), so that `req.params` is keyed by the document's own
 * names; every other character matches itself. path-to-regexp gives some characters a meaning
 * (`: * ? + ! ( ) [ ] { } \` in version 8) and reads any character after a `\` as itself: each
 * literal character other than an ASCII letter, a digit or `/ - . _ ~ %` is written after one.
 */

const RESERVED = /[^A-Za-z0-9/\-._~%]/g;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A path that Express matches character for character (`/rest/Train+Travel+API/1.0.0`). */
export function literalExpressPath(path: string): string {
  return path.replace(RESERVED, (char) => `\\${char}`);
}

export function toExpressPath(template: string): string {
  let out = '';
  let at = 0;
  for (const match of template.matchAll(/\{([^{}]+)\}/g)) {
    const start = match.index;
    out += literalExpressPath(template.slice(at, start));
    const name = match[1] ?? '';
    out += IDENTIFIER.test(name) ? `:${name}` : `:${JSON.stringify(name)}`;
    at = start + match[0].length;
  }
  return out + literalExpressPath(template.slice(at));
}

/** The names of a template's parameters, in order. */
export function templateNames(template: string): string[] {
  return [...template.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1] ?? '');
}

/** How specific a segment is: literal text first, then text with a template in it, then a bare template. */
function rank(segment: string): number {
  if (!segment.includes('{')) return 0;
  return /^\{[^{}]+\}$/.test(segment) ? 2 : 1;
}

/**
 * A total order of paths in which Express tries a more specific segment before a less specific one
 * in the same place: `/pets/mine` before `/pets/{id}`, `/files/{name}.json` before `/files/{id}`,
 * `/a/{x}/b` before `/a/{x}/{y}`. Paths that cannot match the same request may come in any order.
 */
export function comparePaths(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i += 1) {
    const [x = '', y = ''] = [sa[i], sb[i]];
    const byRank = rank(x) - rank(y);
    if (byRank !== 0) return byRank;
    if (x !== y) return x < y ? -1 : 1;
  }
  return sa.length - sb.length;
}
