import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a PostgreSQL server that can hold the server's responses back: what a
 * client sends while its responses are held, it sent without waiting for them. It tells what the
 * clients sent (`sent`, `whenSent`) and when the server has sent given text (`whenResponded`).
 */
export interface ResponseHoldingProxy {
  /** The database URL through the proxy. */
  readonly url: string;
  /** From now on, the server's responses wait in the proxy. */
  hold(): void;
  /** Sends the responses held so far; with `holdAgain`, those that come after them wait again. */
  release(options?: { holdAgain?: boolean }): void;
  /** Everything the clients sent, as Latin-1 text. */
  sent(): string;
  /**
   * Resolves with where `text` starts in `sent()` once a client has sent it after the position
   * `from`; rejects when none has after `withinMs`.
   */
  whenSent(text: string, from: number, withinMs: number): Promise<number>;
  /** The same for what the server responded, held or not (`received()`: all of it, as Latin-1 text). */
  whenResponded(text: string, from: number, withinMs: number): Promise<number>;
  received(): string;
  close(): Promise<void>;
}

export async function startResponseHoldingProxy(databaseUrl: string): Promise<ResponseHoldingProxy> {
  const target = new URL(databaseUrl);
  let holding = false;
  const held: { to: Socket; chunk: Buffer }[] = [];
  const sent = stream();
  const received = stream();
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk: Buffer) => {
      sent.add(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      received.add(chunk);
      if (holding) held.push({ to: client, chunk });
      else client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  const release = ({ holdAgain = false } = {}): void => {
    for (const { to, chunk } of held.splice(0)) to.write(chunk);
    holding = holdAgain;
  };
  return {
    url: url.href,
    hold() {
      holding = true;
    },
    release,
    sent: () => sent.text,
    whenSent: (text, from, withinMs) => sent.when(text, from, withinMs),
    received: () => received.text,
    whenResponded: (text, from, withinMs) => received.when(text, from, withinMs),
    async close() {
      release();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Bytes of one direction as Latin-1 text, and who waits for some text in them. */
function stream() {
  const waiters: { text: string; from: number; resolve: (at: number) => void }[] = [];
  const self = {
    text: '',
    add(chunk: Buffer): void {
      self.text += chunk.toString('latin1');
      for (const waiter of [...waiters]) {
        const at = self.text.indexOf(waiter.text, waiter.from);
        if (at < 0) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(at);
      }
    },
    when(text: string, from: number, withinMs: number): Promise<number> {
      const at = self.text.indexOf(text, from);
      if (at >= 0) return Promise.resolve(at);
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`"${text}" did not come within ${withinMs} ms`)), withinMs);
        waiters.push({
          text,
          from,
          resolve: (found) => {
            clearTimeout(timer);
            resolve(found);
          },
        });
      });
    },
  };
  return self;
}
