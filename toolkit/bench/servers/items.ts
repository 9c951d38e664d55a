/**
 * What every server of the runtime benchmark responds with: the same fixed items, the same bearer
 * token, the same port announcement, so that only the server differs.
 */

export const TOKEN = 'bench-token-7f3a9c';

export interface Item {
  readonly id: string;
  readonly name: string;
  readonly priceCents: number;
  readonly status: 'active' | 'archived';
  readonly tags: readonly string[];
  readonly createdAt: string;
}

export interface NewItem {
  readonly name: string;
  readonly priceCents: number;
  readonly status?: 'active' | 'archived';
  readonly tags?: readonly string[];
}

/** A page of twenty items. */
export const ITEMS: readonly Item[] = Array.from({ length: 20 }, (_, n) => ({
  id: `3f7c0a52-7a5e-4b1e-9f0e-${String(n).padStart(12, '0')}`,
  name: `Item number ${n + 1}`,
  priceCents: 1_000 + n * 37,
  status: n % 3 === 0 ? 'archived' : 'active',
  tags: n % 2 === 0 ? ['blue', 'large'] : ['red'],
  createdAt: `2026-11-${String((n % 28) + 1).padStart(2, '0')}T10:00:00.000Z`,
}));

export const page = (limit: number): { items: readonly Item[]; nextCursor: string | null } => ({
  items: ITEMS.slice(0, limit),
  nextCursor: 'c2',
});

export const created = (body: NewItem): Item => ({
  id: '3f7c0a52-7a5e-4b1e-9f0e-1d2c3b4a5f60',
  name: body.name,
  priceCents: body.priceCents,
  status: body.status ?? 'active',
  tags: body.tags ?? [],
  createdAt: '2026-12-01T09:30:00.000Z',
});

/** The line a server prints once it responds: the bench reads the port from it. */
export function announce(port: number): void {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port })}\n`);
}

export const PORT = Number(process.env['PORT'] ?? '0');
