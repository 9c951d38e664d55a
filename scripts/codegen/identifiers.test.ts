import { describe, expect, it } from 'vitest';
import { derivedOperationId, toIdentifier } from './identifiers.js';

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
    expect(identifier).toMatch(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
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
