/** Default cap on the number of cells a zone crossing may have. */
export const MAX_ZONE_CELLS = 10_000;

/**
 * Default cap on the numbers one stats answer may hold (dates × cells × columns), checked from the
 * plan before any raster is read: 5 M numbers is ~100 MB of JSON.
 */
export const MAX_QUERY_VALUES = 5_000_000;
