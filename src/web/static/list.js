// The basin list beside the map: search by name, triplet or state; sort by any column (% of
// median by default, lowest first); Enter or a click chooses a basin, arrow keys move between rows.
import { escapeHtml } from './map.js';
import { areaText, classOf, num } from './units.js';

const WINDOW_PAD = 30; // rows drawn beyond each edge of the list's view
const ROW_PX = 46; // a row's height in CSS px (app.css .list tbody tr); measured again if fonts differ

/** The State column of a basin id: a triplet's state, or a set member's set. */
const regionOf = (id) => {
  const parts = id.split(':');
  return parts.length === 3 ? parts[1] : parts[0];
};

const COLUMNS = [
  ['name', 'Basin (triplet)'],
  ['state', 'State'],
  ['area', 'Area'],
  ['value', 'Value'],
  ['pct', '% of median'],
];

/** Rows of the list: one per basin, with the values of the all-basins answer once known. */
export class BasinList {
  constructor(table, search, onPick, onSort) {
    this.table = table;
    this.search = search;
    this.onPick = onPick;
    this.onSort = onSort;
    this.rows = [];
    this.shown = []; // the rows the search keeps, in order
    this.scroller = table.closest('.scroll'); // the list's scrolling box
    this.rowPx = ROW_PX;
    this.drawn = null; // [first, last) of the shown rows in the DOM
    this.scroller.addEventListener('scroll', () => this.#draw(), { passive: true });
    this.sort = { key: 'pct', dir: 1 };
    this.units = 'metric';
    this.unit = '';
    search.addEventListener('input', () => this.render());
    // Enter in the search box chooses the first basin it keeps (the README's "find it and press Enter").
    search.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || this.shown.length === 0) return;
      e.preventDefault();
      onPick(this.shown[0].triplet);
    });
    // Rows are picked by a click, Enter or Space: one listener each on the table.
    const row = (e) => e.target.closest?.('tbody tr[data-triplet]');
    table.addEventListener('click', (e) => {
      const tr = row(e);
      if (tr) onPick(tr.dataset.triplet);
    });
    table.addEventListener('keydown', (e) => {
      const tr = row(e);
      if (tr && (e.key === 'Enter' || e.key === ' ')) {
        e.preventDefault();
        onPick(tr.dataset.triplet);
      } else if (tr && this.#move(tr, e.key)) e.preventDefault();
    });
  }

  /** Set the basins (GeoJSON features). */
  basins(features) {
    this.rows = features.map((f) => ({
      triplet: f.id,
      name: f.properties.name,
      state: regionOf(f.id),
      area: f.properties.area_meters,
      value: null,
      pct: null,
    }));
  }

  /** Set each basin's value (converted) and % of median; `unit` heads the value column. */
  values(byTriplet, unit) {
    this.unit = unit;
    for (const r of this.rows) {
      const v = byTriplet.get(r.triplet);
      r.value = v?.value ?? null;
      r.pct = v?.pct ?? null;
      r.median = v?.median ?? null;
    }
  }

  /** `key:asc|desc` as in the URL. */
  setSort(text) {
    const [key, dir] = (text ?? '').split(':');
    if (COLUMNS.some(([k]) => k === key)) this.sort = { key, dir: dir === 'desc' ? -1 : 1 };
  }

  get sortText() {
    return `${this.sort.key}:${this.sort.dir < 0 ? 'desc' : 'asc'}`;
  }

  /** The rows the search keeps, sorted (missing values last). */
  visible() {
    const q = this.search.value.trim().toLowerCase();
    const { key, dir } = this.sort;
    return this.rows
      .filter((r) => q === '' || `${r.name} ${r.triplet} ${r.state}`.toLowerCase().includes(q))
      .sort((a, b) => {
        const x = a[key];
        const y = b[key];
        if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
        return (
          (typeof x === 'string' ? x.localeCompare(y) : x - y) * dir || a.triplet.localeCompare(b.triplet)
        );
      });
  }

  /** Draw the header and the rows the search keeps; `chosen` is highlighted and scrolled into view. */
  render(chosen = this.chosen) {
    const scrollTo = chosen !== this.chosen && chosen;
    this.chosen = chosen;
    const t = this.table;
    t.replaceChildren();
    const head = t.createTHead().insertRow();
    for (const [key, label] of COLUMNS) {
      const th = document.createElement('th');
      th.scope = 'col';
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = key === 'value' && this.unit ? `${label} (${this.unit})` : label;
      b.dataset.key = key;
      const sorted = this.sort.key === key;
      th.setAttribute('aria-sort', sorted ? (this.sort.dir > 0 ? 'ascending' : 'descending') : 'none');
      b.addEventListener('click', () => {
        this.sort = { key, dir: sorted ? -this.sort.dir : 1 };
        this.render();
        this.onSort(this.sortText);
      });
      th.append(b);
      head.append(th);
    }
    this.shown = this.visible();
    this.body = t.createTBody();
    this.drawn = null;
    t.setAttribute('aria-rowcount', String(this.shown.length + 1)); // + the header row
    const cap = t.createCaption();
    cap.textContent = `${this.shown.length} of ${this.rows.length} basins`;
    const at = scrollTo ? this.shown.findIndex((r) => r.triplet === scrollTo) : -1;
    if (at >= 0) this.#reveal(at);
    else this.#draw();
  }

  /**
   * Write the rows in view (and WINDOW_PAD either side) between two spacer rows as tall as the
   * rows left out: 600 laid-out rows took ~200 ms of style and layout at first paint. `around`
   * (a row index) draws the window from that row instead of from the scroll position.
   */
  #draw(around) {
    const n = this.shown.length;
    const px = this.rowPx;
    const top = around === undefined ? Math.max(0, this.scroller.scrollTop - this.#rowsTop()) : around * px;
    const first = Math.max(0, Math.floor(top / px) - WINDOW_PAD);
    // The view: the list's box, or the window while the box still grows to its rows.
    const view = Math.max(this.scroller.clientHeight, innerHeight);
    const last = Math.min(n, first + Math.ceil(view / px) + 2 * WINDOW_PAD);
    if (this.drawn && this.drawn[0] === first && this.drawn[1] === last) return;
    this.drawn = [first, last];
    const pad = (rows) =>
      rows > 0 ? `<tr class="pad" aria-hidden="true"><td style="height:${rows * px}px"></td></tr>` : '';
    const chosen = this.chosen;
    const html = [pad(first)];
    for (let i = first; i < last; i++) {
      const r = this.shown[i];
      const [, label, colour] = classOf(r.pct, r.median);
      const selected = r.triplet === chosen ? ' aria-selected="true"' : '';
      const name = escapeHtml(r.name);
      html.push(
        `<tr tabindex="0" aria-rowindex="${i + 2}" data-i="${i}" data-triplet="${escapeHtml(r.triplet)}"${selected}><td title="${name}">${name}<br><small>${escapeHtml(r.triplet)}</small></td><td>${escapeHtml(r.state)}</td><td>${areaText(r.area, this.units)}</td><td>${num(r.value)}</td><td><i class="swatch" style="background:${colour}" title="${label}"></i>${r.pct === null ? '–' : Math.round(r.pct)}</td></tr>`,
      );
    }
    html.push(pad(n - last));
    const focused = this.body.contains(document.activeElement)
      ? /** @type {HTMLElement} */ (document.activeElement).dataset.i
      : undefined;
    this.body.innerHTML = html.join('');
    // The row that had the keyboard keeps it when it is still drawn.
    if (focused !== undefined)
      this.body.querySelector(`tr[data-i="${focused}"]`)?.focus({ preventScroll: true });
    // Rows are ROW_PX high (CSS); if fonts make them taller, measure once and draw again.
    const row = this.body.querySelector('tr[data-i]');
    if (row && Math.abs(row.offsetHeight - px) > 0.5) {
      this.rowPx = row.offsetHeight;
      this.drawn = null;
      this.#draw(around);
    }
  }

  /** Where the first row starts in the list's scrolling box, in px (below the caption and the header). */
  #rowsTop() {
    const h = this.table.tHead;
    return this.table.offsetTop - this.scroller.offsetTop + h.offsetTop + h.offsetHeight;
  }

  /** Scroll row `i` of the shown rows into view, draw, and return its element. */
  #reveal(i) {
    // Row i drawn first: the spacers give the list its full height, so the scroll can reach it.
    if (!this.drawn || i < this.drawn[0] || i >= this.drawn[1]) this.#draw(i);
    const head = this.table.tHead.offsetHeight; // the sticky header covers this much of the view
    const y = this.#rowsTop() + i * this.rowPx;
    const s = this.scroller;
    if (y < s.scrollTop + head) s.scrollTop = y - head;
    else if (y + this.rowPx > s.scrollTop + s.clientHeight) s.scrollTop = y + this.rowPx - s.clientHeight;
    this.#draw();
    return this.body.querySelector(`tr[data-i="${i}"]`);
  }

  /** Arrow keys, Page Up/Down, Home and End move between rows, drawing the rows they reach. */
  #move(tr, key) {
    const i = Number(tr.dataset.i);
    const page = Math.max(1, Math.floor(this.scroller.clientHeight / this.rowPx) - 1);
    const step = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity }[
      key
    ];
    if (step === undefined) return false;
    const j = Math.min(this.shown.length - 1, Math.max(0, i + step));
    this.#reveal(j)?.focus();
    return true;
  }
}
