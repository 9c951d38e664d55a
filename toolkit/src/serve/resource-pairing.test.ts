import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { readOperations } from '../check/document.js';
import { describeResource, pairResources, type StatefulResource } from './resource-pairing.js';

const read = (file: string): OpenApiDocument =>
  parse(
    readFileSync(fileURLToPath(new URL(`../../test/fixtures/${file}`, import.meta.url)), 'utf8'),
  ) as OpenApiDocument;

const resourcesOf = (file: string): StatefulResource[] => {
  const document = read(file);
  return pairResources(document, readOperations(document).operations);
};

const summary = (resource: StatefulResource) => ({
  name: resource.name,
  create: resource.create.key,
  items: resource.items.map((item) => [item.operation.key, item.role, item.parameter, item.field, item.via]),
  lists: resource.lists.map((list) => [list.operation.key, list.arrayProperty, list.sameItems]),
});

describe('the resources serve --stateful keeps', () => {
  const resources = resourcesOf('generator/stateful.yaml');
  const named = (name: string): StatefulResource => {
    const found = resources.find((resource) => resource.name === name);
    if (found === undefined) throw new Error(name);
    return found;
  };

  it("pairs by the create's links, the field they name feeding the path parameter", () => {
    expect(summary(named('accounts'))).toEqual({
      name: 'accounts',
      create: 'openAccount',
      items: [
        ['getAccount', 'read', 'accountNumber', '/number', 'link ReadAccount'],
        ['closeAccount', 'delete', 'accountNumber', '/number', 'link CloseAccount'],
      ],
      lists: [],
    });
  });

  it("pairs by the Location header of the create's response, whose body holds no id", () => {
    const uploads = named('uploads');
    expect(summary(uploads)).toEqual({
      name: 'uploads',
      create: 'createUpload',
      items: [
        ['getUpload', 'read', 'uploadKey', undefined, 'Location header'],
        ['renameUpload', 'merge', 'uploadKey', undefined, 'Location header'],
      ],
      lists: [['listUploads', 'items', true]],
    });
    expect(uploads.items[0]?.examples).toEqual(['up-1']);
  });

  it('pairs by the name of the path parameter, and leaves a path below the item alone', () => {
    expect(summary(named('orders'))).toEqual({
      name: 'orders',
      create: 'createOrder',
      items: [
        ['getOrder', 'read', 'orderId', '/id', 'path parameter {orderId}'],
        ['replaceOrder', 'replace', 'orderId', '/id', 'path parameter {orderId}'],
        ['updateOrder', 'merge', 'orderId', '/id', 'path parameter {orderId}'],
        ['deleteOrder', 'delete', 'orderId', '/id', 'path parameter {orderId}'],
      ],
      lists: [['listOrders', 'orders', true]],
    });
  });

  it('pairs a PUT to an item path with the GET beside it where no POST creates', () => {
    expect(summary(named('preferences'))).toEqual({
      name: 'preferences',
      create: 'setPreference',
      items: [
        ['getPreference', 'read', 'key', '/key', 'the same path'],
        ['setPreference', 'replace', 'key', '/key', 'the same path'],
      ],
      lists: [],
    });
    expect(resources.map((resource) => resource.name)).toEqual(['accounts', 'uploads', 'orders', 'preferences']);
  });

  it('says which operations each resource has, reads first and deletes last', () => {
    expect(resources.map(describeResource)).toEqual([
      'accounts (openAccount → getAccount, closeAccount)',
      'uploads (createUpload → getUpload, listUploads, renameUpload)',
      'orders (createOrder → getOrder, listOrders, replaceOrder, updateOrder, deleteOrder)',
      'preferences (setPreference → getPreference)',
    ]);
  });
});

describe('the resources of the public documents', () => {
  it("Redocly's museum: special events, not the tickets (the QR code is below the ticket's path)", () => {
    expect(resourcesOf('third-party/redocly-museum.yaml').map(describeResource)).toEqual([
      'special-events (createSpecialEvent → getSpecialEvent, listSpecialEvents, updateSpecialEvent, deleteSpecialEvent)',
    ]);
  });

  it("ReadMe's petstore: what it declares a success response for (addPet, updatePet and the deletes declare none)", () => {
    const resources = resourcesOf('third-party/readme-petstore.yaml');
    expect(resources.map(describeResource)).toEqual([
      'order (placeOrder → getOrderById)',
      'user (createUser → getUserByName)',
    ]);
    expect(resources.map((resource) => resource.items.map((item) => item.field))).toEqual([['/id'], ['/username']]);
  });

  it('none where no create is paired with another operation', () => {
    expect(resourcesOf('third-party/readme-petstore-simple.yaml')).toEqual([]);
    expect(resourcesOf('third-party/oai-tictactoe.yaml')).toEqual([]);
  });
});
