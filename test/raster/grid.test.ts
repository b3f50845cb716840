import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crsFromEpsg, crsFromId, MODIS_SINUSOIDAL } from '../../src/raster/crs.js';
import {
  alignedOffset,
  type Grid,
  pixelToWorld,
  subGrid,
  tileAlignedWindow,
  tilesOfWindow,
  windowOfBounds,
  worldToPixel,
} from '../../src/raster/grid.js';
import { SNODAS_GRID } from '../helpers/raster.js';

const g: Grid = {
  crs: crsFromEpsg(4326)!,
  originX: -120,
  originY: 45,
  cellWidth: 0.5,
  cellHeight: 0.25,
  width: 10,
  height: 8,
  tileSize: 4,
};

describe('grid model', () => {
  it('converts between pixel and world coordinates', () => {
    assert.deepEqual(pixelToWorld(g, 2, 4), [-119, 44]);
    assert.deepEqual(worldToPixel(g, -119, 44), [2, 4]);
  });

  it('covers bounds with whole pixels, clipped to the grid; null outside', () => {
    assert.deepEqual(windowOfBounds(g, [-119.9, 44.1, -118.6, 44.9]), {
      col: 0,
      row: 0,
      width: 3,
      height: 4,
    });
    assert.deepEqual(windowOfBounds(g, [-121, 43.1, -119.4, 43.5]), { col: 0, row: 6, width: 2, height: 2 });
    assert.equal(windowOfBounds(g, [-130, 10, -125, 12]), null);
  });

  it('lists the tiles a window touches and aligns windows to tiles', () => {
    assert.deepEqual(tilesOfWindow(4, { col: 3, row: 0, width: 2, height: 5 }), {
      tx0: 0,
      ty0: 0,
      tx1: 1,
      ty1: 1,
    });
    assert.deepEqual(tileAlignedWindow(g, { col: 5, row: 5, width: 5, height: 1 }), {
      col: 4,
      row: 4,
      width: 6,
      height: 4,
    });
    const sub = subGrid(g, { col: 4, row: 4, width: 6, height: 4 });
    assert.deepEqual([sub.originX, sub.originY, sub.width, sub.height], [-118, 44, 6, 4]);
    assert.deepEqual(alignedOffset(g, sub), [4, 4]);
    assert.equal(alignedOffset(g, { ...sub, originX: sub.originX + 0.1 }), null);
  });

  it('knows the CRSs the product needs and no others', () => {
    for (const code of [4326, 4269, 5070, 32611, 32612, 26912])
      assert.equal(crsFromEpsg(code)?.id, `EPSG:${code}`);
    assert.equal(crsFromEpsg(3857), null);
    assert.equal(crsFromId('MODIS:SINUSOIDAL'), MODIS_SINUSOIDAL);
    assert.equal(SNODAS_GRID.width * SNODAS_GRID.height, 23_239_185);
  });
});
