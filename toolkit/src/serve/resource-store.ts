import { valueAt } from './resource-schema.js';

/**
 * What `serve --stateful` holds: the resources created, by resource, in the order they were
 * created, in memory only (a new server holds none). Each is found by the value of the path
 * parameter that names it: the value of one of its fields (`/id`), or the key the create's
 * `Location` header gave it where no field holds it; and by the values of the other path
 * parameters of the create's path (`{ownerId}` of `POST /owners/{ownerId}/pets`), which scope it.
 */

type Json = Record<string, unknown>;

export interface Held {
  /** Unique in the store. */
  readonly serial: number;
  readonly body: Json;
  /** The id given where no field of the body holds it. */
  readonly key: string | number | undefined;
  /** The create's path parameters, as text. */
  readonly scope: Readonly<Record<string, string>>;
}

/** How a request names a resource: the field that holds the id (undefined: the key), its value, and the scope. */
export interface Address {
  readonly field: string | undefined;
  readonly value: string;
  readonly scope: Readonly<Record<string, string>>;
}

/** Whether `held` lies within `scope`: each parameter both name has the same value. */
const within = (held: Held, scope: Readonly<Record<string, string>>): boolean =>
  Object.entries(scope).every(([name, value]) => !(name in held.scope) || held.scope[name] === value);

/** The id `held` has for an address's field, as text. */
const idOf = (held: Held, field: string | undefined): string | undefined => {
  const value = field === undefined ? held.key : valueAt(held.body, field);
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
};

export class ResourceStore {
  private readonly resources = new Map<string, Map<number, Held>>();
  private serial = 0;

  private of(resource: string): Map<number, Held> {
    let held = this.resources.get(resource);
    if (held === undefined) {
      held = new Map();
      this.resources.set(resource, held);
    }
    return held;
  }

  /** Holds a new resource. */
  insert(
    resource: string,
    body: Json,
    key: string | number | undefined,
    scope: Readonly<Record<string, string>>,
  ): Held {
    this.serial += 1;
    const held: Held = { serial: this.serial, body, key, scope };
    this.of(resource).set(held.serial, held);
    return held;
  }

  /** The resource an address names; undefined when none is held. */
  find(resource: string, address: Address): Held | undefined {
    for (const held of this.of(resource).values())
      if (idOf(held, address.field) === address.value && within(held, address.scope)) return held;
    return undefined;
  }

  /** The resources within `scope`, in the order they were created. */
  list(resource: string, scope: Readonly<Record<string, string>>): Held[] {
    return [...this.of(resource).values()].filter((held) => within(held, scope));
  }

  /** The values held of `field` (the keys for undefined), to tell a fresh id from those in use. */
  ids(resource: string, field: string | undefined): unknown[] {
    return [...this.of(resource).values()].map((held) => (field === undefined ? held.key : valueAt(held.body, field)));
  }

  /** Replaces the body of a held resource, keeping its place in the list. */
  update(resource: string, held: Held, body: Json): Held {
    const next: Held = { ...held, body };
    this.of(resource).set(held.serial, next);
    return next;
  }

  /** Forgets a held resource. */
  remove(resource: string, held: Held): void {
    this.of(resource).delete(held.serial);
  }
}
