/**
 * Where a documented operation is served, for a request that puts its path under another base path
 * than the one the server mounts it under: the path of one of the document's servers when the
 * server mounts the paths as the document writes them, or none when it mounts them under the
 * servers' paths. Read from the route table's templates, for any document.
 */

/** What this reads of a route. */
export interface DocumentedRoute {
  readonly method: string;
  /** The path as the document writes it (`/tickets/{ticketId}`). */
  readonly path: string;
}

export interface Mounts {
  /** The base paths the server mounts every operation under: `['']` for the paths as written. */
  readonly mountedUnder: readonly string[];
  /** The base paths of the document's servers (`/v1`), which a client may put before a path. */
  readonly serverBases: readonly string[];
  /** Why the paths are where they are, ending the message (`this server mounts …`). */
  readonly note: string;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A path template as a regular expression: each `{name}` one segment. */
const templateRegExp = (template: string): RegExp =>
  new RegExp(
    `^${template
      .split(/\{[^{}]+\}/)
      .map(escape)
      .join('[^/]+')}$`,
  );

const matchers = new WeakMap<DocumentedRoute, RegExp>();
function matches(route: DocumentedRoute, path: string): boolean {
  let regexp = matchers.get(route);
  if (regexp === undefined) {
    regexp = templateRegExp(route.path);
    matchers.set(route, regexp);
  }
  return regexp.test(path);
}

/**
 * The message of a 404 for `method` and `requestPath` when the path, with a base taken off or none,
 * is an operation's that is served elsewhere: `GET /museum-hours is served at /museum-hours: …`.
 * Undefined when no documented path matches, or it is served where it was asked for.
 */
export function servedElsewhere(
  routes: readonly DocumentedRoute[],
  mounts: Mounts,
  method: string,
  requestPath: string,
): string | undefined {
  const wanted = method.toLowerCase();
  // Express responds to HEAD with a path's GET route.
  const methods = wanted === 'head' ? ['head', 'get'] : [wanted];
  const bases = new Set(['', ...mounts.serverBases, ...mounts.mountedUnder]);
  for (const base of bases) {
    if (base !== '' && !requestPath.startsWith(`${base}/`)) continue;
    const path = requestPath.slice(base.length);
    const route = routes.find(
      (candidate) => methods.includes(candidate.method.toLowerCase()) && matches(candidate, path),
    );
    if (route === undefined) continue;
    const served = mounts.mountedUnder.map((mount) => `${mount}${path}`);
    if (served.includes(requestPath)) return undefined;
    return `${route.method.toUpperCase()} ${route.path} is served at ${served.join(' and ')}: ${mounts.note}`;
  }
  return undefined;
}
