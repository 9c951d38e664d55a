import { readFile } from 'node:fs/promises';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

export interface HttpServerOptions {
  /**
   * HTML pages the server serves itself for GET and HEAD, before the app sees the request: a path
   * (`/docs`) and the file to send (the reference `npm run docs` builds). The file is read at each
   * request, so a rebuilt page is served at once; a page whose file cannot be read, any other
   * method and any other path go to the app, which responds to them with 404 and 405.
   */
  readonly referencePages?: Readonly<Record<string, string>>;
}

/** The headers of a reference page: HTML, checked again on every visit (it is rebuilt in place). */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
};

/** The path of a request target, without its query and one trailing slash (`/docs/` is `/docs`). */
function pathOf(target: string | undefined): string {
  const path = (target ?? '/').split('?', 1)[0] ?? '/';
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** The app, with the reference pages served in front of it. */
function withReferencePages(
  app: Express,
  pages: Readonly<Record<string, string>>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const files = new Map<string, string>();
  for (const [path, file] of Object.entries(pages)) {
    if (!path.startsWith('/') || pathOf(path) !== path) {
      throw new TypeError(
        `referencePages: ${JSON.stringify(path)} must be a path starting with / and not ending with one, such as /docs`,
      );
    }
    files.set(path, file);
  }
  return (req, res) => {
    const file = req.method === 'GET' || req.method === 'HEAD' ? files.get(pathOf(req.url)) : undefined;
    if (file === undefined) {
      app(req, res);
      return;
    }
    readFile(file).then(
      (html) => {
        res.writeHead(200, { ...PAGE_HEADERS, 'Content-Length': html.byteLength });
        res.end(req.method === 'HEAD' ? undefined : html);
      },
      () => app(req, res),
    );
  };
}

/**
 * The HTTP server of an Express app, whose requests and responses Node builds as the app's own:
 * their prototypes are `app.request` and `app.response` from the start.
 *
 * Express gives every request and response those prototypes when it takes them
 * (`Object.setPrototypeOf` in `app.handle`). Changing the prototype of an object that already
 * exists costs V8 far more than the call: behind `app.listen` about a fifth of everything a
 * request allocates survived the young generation's collections and went to the old one, where
 * only the full collections, one every second or so under load, freed it again (a bare Express
 * app responding with a bank list: 22 % of the young generation surviving each scavenge, against 0.1 %
 * for node:http alone). Built with the right prototype, the object is left as it is: Express's
 * call finds its prototype set already and changes nothing. The cause and this remedy are
 * expressjs/express#5998; Node's `IncomingMessage` and `ServerResponse` options exist for it.
 *
 * Given `referencePages`, it serves those pages itself (HttpServerOptions) and passes every other
 * request to the app.
 */
export function createHttpServer(app: Express, options: HttpServerOptions = {}): Server {
  // Constructors whose instances have the app's prototypes: Node calls `new` on them with the
  // arguments it gives its own constructors, which then initialize the new object. (They are
  // plain functions in Node, so they can be called on it; Reflect.construct with another
  // new.target, which would also take a class, builds each object on a slow path: slower than
  // app.listen in the same measurement.)
  const initRequest = IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void;
  const initResponse = ServerResponse as unknown as (
    this: ServerResponse,
    req: IncomingMessage,
    options?: unknown,
  ) => void;
  function Request(this: IncomingMessage, socket: Socket): void {
    initRequest.call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    initResponse.call(this, req, options);
  }
  Response.prototype = app.response;
  const pages = options.referencePages ?? {};
  return createServer(
    {
      IncomingMessage: Request as unknown as typeof IncomingMessage,
      ServerResponse: Response as unknown as typeof ServerResponse,
    },
    Object.keys(pages).length === 0 ? app : withReferencePages(app, pages),
  );
}
