// What the page's scripts find as globals: Leaflet and topojson-client (vendor scripts before the
// module) and uPlot (loaded on first chart). Typed loosely: their own types are not dependencies.
// biome-ignore lint/suspicious/noExplicitAny: Leaflet's types are not a dependency (a vendor script)
declare const L: any;
// biome-ignore lint/suspicious/noExplicitAny: topojson-client's types are not a dependency
declare const topojson: any;
// biome-ignore lint/suspicious/noExplicitAny: uPlot's bundled types are not wired to a global
declare const uPlot: any;

interface Window {
  /** The page's state, charts and shown table, for scripts and tests. */
  snowdb: unknown;
}
