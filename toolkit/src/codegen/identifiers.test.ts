import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derivedOperationId, toIdentifier } from './identifiers.js';

/** Whether `name` can be declared in strict code, as in `export const name = …` of a module. */
function declarable(name: string): boolean {
  try {
    new Function(`'use strict'; const ${name} = 1; return ${name};`);
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && name !== 'await';
  } catch {
    return false;
  }
}

describe('toIdentifier', () => {
  it.each([
    ['get-board', 'getBoard'],
    ['cookies_standard', 'cookiesStandard'],
    ['pets.list', 'petsList'],
    ['List all pets', 'listAllPets'],
    ['GetPets', 'getPets'],
    ['getHTTPStatus', 'getHTTPStatus'],
    ['listBanks', 'listBanks'],
    ['form_data_deepObject_exploded', 'formDataDeepObjectExploded'],
    ['2fa-verify', 'operation2faVerify'],
    ['delete', 'deleteOperation'],
    ['--', 'operation'],
    ['héllo wörld', 'hLloWRld'],
  ])('%s → %s', (name, identifier) => {
    expect(toIdentifier(name)).toBe(identifier);
  });

  it('makes a name that can be declared of any text', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('let', 'static', 'yield', 'await', 'enum', 'class', '0', 'a-b'),
    );
    fc.assert(
      fc.property(text, (name) => declarable(toIdentifier(name))),
      { numRuns: 2_000 },
    );
  });
});

describe('derivedOperationId', () => {
  it.each([
    ['get', '/pets/{petId}', 'getPetsByPetId'],
    ['post', '/pets/{id}/photos', 'postPetsByIdPhotos'],
    ['delete', '/pets/{pet-id}', 'deletePetsByPetId'],
    ['get', '/files/{name}.{ext}', 'getFilesByNameByExt'],
    ['put', '/v1/card/{id}/limits', 'putV1CardByIdLimits'],
    ['get', '/', 'get'],
  ])('%s %s → %s', (method, path, id) => {
    expect(derivedOperationId(method, path)).toBe(id);
  });
});
