/**
 * Response serializers get the shared schemas a response reaches (api/serializers.ts): through
 * nested and chained `$ref`s, around cycles, and nothing else.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SHARED_SCHEMAS } from '../../src/api/schemas.js';
import { reachedSchemas } from '../../src/api/serializers.js';

const shared = {
  Link: { $id: 'Link', type: 'object', properties: { href: { type: 'string' } } },
  Page: { $id: 'Page', type: 'object', properties: { links: { type: 'array', items: { $ref: 'Link#' } } } },
  Node: {
    $id: 'Node',
    type: 'object',
    properties: { child: { $ref: 'Node#' }, page: { $ref: 'Page#/properties' } },
  },
  Unused: { $id: 'Unused', type: 'string' },
};

describe('response serializers', () => {
  it('reach shared schemas through nested and chained refs, around a cycle, and no others', () => {
    assert.deepEqual(Object.keys(reachedSchemas({ type: 'string' }, shared)), []);
    assert.deepEqual(Object.keys(reachedSchemas({ type: 'array', items: { $ref: 'Link#' } }, shared)), [
      'Link',
    ]);
    assert.deepEqual(Object.keys(reachedSchemas({ anyOf: [{ $ref: 'Page#' }] }, shared)).sort(), [
      'Link',
      'Page',
    ]);
    assert.deepEqual(Object.keys(reachedSchemas({ $ref: 'Node#' }, shared)).sort(), ['Link', 'Node', 'Page']);
    // A local pointer and an id no shared schema has reach nothing.
    assert.deepEqual(Object.keys(reachedSchemas({ $ref: '#/definitions/x' }, shared)), []);
    assert.deepEqual(Object.keys(reachedSchemas({ $ref: 'Nowhere#' }, shared)), []);
    assert.equal(reachedSchemas({ $ref: 'Link#' }, shared).Link, shared.Link, 'the shared schema itself');
  });

  it('every ref among the API’s shared schemas names one of them', () => {
    const byId = Object.fromEntries(SHARED_SCHEMAS.map((s) => [s.$id, s]));
    const refs = JSON.stringify(SHARED_SCHEMAS).match(/"\$ref":"[^"]*"/g) ?? [];
    assert.ok(refs.length >= 5, 'the shared schemas refer to each other');
    for (const r of refs) assert.ok(r.slice(8, -1).split('#')[0]! in byId, r);
  });
});
