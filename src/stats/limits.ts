/** Default cap on the number of cells a zone crossing may have. */
export const MAX_ZONE_CELLS = 10_000;
