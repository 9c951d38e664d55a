import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * The HTTP server of an Express app, whose requests and responses Node builds as the app's own:
 * their prototypes are `app.request` and `app.response` from the start.
 *
 * Express gives every request and response those prototypes when it takes them
 * (`Object.setPrototypeOf` in `app.handle`). Changing the prototype of an object that already
 * exists costs V8 far more than the call: behind `app.listen` about a fifth of everything a
 * request allocates survived the young generation's collections and went to the old one, where
 * only the full collections, one every second or so under load, freed it again (a bare Express
 * app answering a bank list: 22 % of the young generation surviving each scavenge, against 0.1 %
 * for node:http alone). Built with the right prototype, the object is left as it is: Express's
 * call finds its prototype set already and changes nothing. The cause and this remedy are
 * expressjs/express#5998; Node's `IncomingMessage` and `ServerResponse` options exist for it.
 */
export function createHttpServer(app: Express): Server {
  // Constructors whose instances have the app's prototypes: Node calls `new` on them with the
  // arguments it gives its own constructors, which then initialize the new object. (They are
  // plain functions in Node, so they can be called on it; Reflect.construct with another
  // new.target, which would also take a class, builds each object on a slow path: slower than
  // app.listen in the same measurement.)
  const initRequest = IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void;
  const initResponse = ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void;
  function Request(this: IncomingMessage, socket: Socket): void {
    initRequest.call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    initResponse.call(this, req, options);
  }
  Response.prototype = app.response;
  return createServer(
    {
      IncomingMessage: Request as unknown as typeof IncomingMessage,
      ServerResponse: Response as unknown as typeof ServerResponse,
    },
    app,
  );
}
