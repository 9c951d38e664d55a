import { describe, expect, it } from 'vitest';
import { ResourceStore } from './resource-store.js';

describe('the resources serve --stateful holds', () => {
  it('finds a resource by the field that holds its id, as text', () => {
    const store = new ResourceStore();
    store.insert('orders', { id: 1, item: 'pen' }, undefined, {});
    store.insert('orders', { id: 2, item: 'ink' }, undefined, {});
    expect(store.find('orders', { field: '/id', value: '2', scope: {} })?.body).toEqual({ id: 2, item: 'ink' });
    expect(store.find('orders', { field: '/id', value: '3', scope: {} })).toBeUndefined();
    expect(store.find('accounts', { field: '/id', value: '1', scope: {} })).toBeUndefined();
    expect(store.ids('orders', '/id')).toEqual([1, 2]);
  });

  it('finds by the key where no field holds the id, and by a nested field', () => {
    const store = new ResourceStore();
    store.insert('uploads', { fileName: 'a.txt', meta: { ref: 'r-1' } }, 'up-1', {});
    expect(store.find('uploads', { field: undefined, value: 'up-1', scope: {} })?.body.fileName).toBe('a.txt');
    expect(store.find('uploads', { field: '/meta/ref', value: 'r-1', scope: {} })?.key).toBe('up-1');
    expect(store.ids('uploads', undefined)).toEqual(['up-1']);
  });

  it("keeps each resource within the create's other path parameters", () => {
    const store = new ResourceStore();
    store.insert('pets', { id: 1 }, undefined, { ownerId: '7' });
    store.insert('pets', { id: 2 }, undefined, { ownerId: '8' });
    expect(store.find('pets', { field: '/id', value: '1', scope: { ownerId: '8' } })).toBeUndefined();
    expect(store.find('pets', { field: '/id', value: '1', scope: { ownerId: '7' } })?.body).toEqual({ id: 1 });
    expect(store.list('pets', { ownerId: '8' }).map((held) => held.body)).toEqual([{ id: 2 }]);
    expect(store.list('pets', {})).toHaveLength(2);
  });

  it('lists in the order of creation, a change keeping its place, a delete forgetting it', () => {
    const store = new ResourceStore();
    const first = store.insert('orders', { id: 1, item: 'pen' }, undefined, {});
    const second = store.insert('orders', { id: 2, item: 'ink' }, undefined, {});
    store.update('orders', first, { id: 1, item: 'pencil' });
    expect(store.list('orders', {}).map((held) => held.body)).toEqual([
      { id: 1, item: 'pencil' },
      { id: 2, item: 'ink' },
    ]);
    store.remove('orders', second);
    expect(store.list('orders', {}).map((held) => held.body.id)).toEqual([1]);
    expect(store.find('orders', { field: '/id', value: '2', scope: {} })).toBeUndefined();
  });
});
