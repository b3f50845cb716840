/**
 * A JSON array read element by element as its bytes arrive: each top-level element is parsed
 * (JSON.parse of its own bytes) and handed on as soon as it is whole, so a large answer is never
 * held as one text and a bad element is seen before the rest arrives. Scans bytes: UTF-8's
 * multi-byte sequences hold no ASCII byte, so quotes, backslashes and brackets are never mistaken.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
/** Space, tab, LF, CR: JSON's whitespace. */
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** Where the splitter is: before `[`, inside the array, after `]`. */
type Phase = 'start' | 'inside' | 'end';

/**
 * A body that is not a JSON array, or an element that is not JSON: the message says where;
 * `otherJson` when the body opens as some other JSON value (an object, a string, …).
 */
export class JsonArrayError extends Error {
  constructor(
    message: string,
    readonly otherJson = false,
  ) {
    super(message);
  }
}

/** Bytes a JSON value other than an array can open with: `{ " - 0-9 t f n`. */
const opensJson = (b: number) =>
  b === OPEN_OBJECT ||
  b === QUOTE ||
  b === 0x2d ||
  (b >= 0x30 && b <= 0x39) ||
  b === 0x74 ||
  b === 0x66 ||
  b === 0x6e;

export class JsonArraySplitter {
  private phase: Phase = 'start';
  /** Nesting depth inside the current element (0: between elements). */
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Between elements, what may come: the first element or `]`, a `,` or `]`, an element. */
  private next: 'first' | 'comma' | 'element' = 'first';
  /** The current element's bytes from earlier chunks. */
  private parts: Uint8Array[] = [];
  /** Elements handed on so far. */
  count = 0;
  /** Bytes seen so far. */
  private seen = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  /** @param each called with every element, in order, as soon as it is whole; may throw to stop. */
  constructor(private readonly each: (value: unknown, index: number) => void) {}

  /** Feeds the next bytes. @throws JsonArrayError, or what `each` throws. */
  push(chunk: Uint8Array): void {
    // Start of the current element in this chunk (0 when it began in an earlier one; -1: none).
    let from = this.parts.length > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.phase === 'start') {
        if (isSpace(b)) continue;
        if (b !== OPEN_ARRAY)
          throw new JsonArrayError(
            `is not a JSON array (opens with ${JSON.stringify(String.fromCharCode(b))})`,
            opensJson(b),
          );
        this.phase = 'inside';
        continue;
      }
      if (this.phase === 'end') {
        if (!isSpace(b)) throw this.bad(i, 'goes on after its closing ]');
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
        continue;
      }
      if (from < 0) {
        // Between elements: a comma, the closing bracket, or an element's first byte.
        if (isSpace(b)) continue;
        if (b === CLOSE_ARRAY && this.next !== 'element') {
          this.phase = 'end';
          continue;
        }
        if (b === COMMA && this.next === 'comma') {
          this.next = 'element';
          continue;
        }
        if (this.next === 'comma' || b === COMMA || b === CLOSE_ARRAY)
          throw this.bad(
            i,
            `has ${String.fromCharCode(b)} where ${this.next === 'comma' ? ', or ]' : 'an element'} should be`,
          );
        from = i;
      }
      if (b === QUOTE) this.inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) this.depth++;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (this.depth === 0) {
          // A scalar element ends at the array's close.
          this.emit(chunk.subarray(from, i), i);
          from = -1;
          this.phase = 'end';
          this.next = 'comma';
          continue;
        }
        this.depth--;
        if (this.depth === 0) {
          this.emit(chunk.subarray(from, i + 1), i);
          from = -1;
          this.next = 'comma';
        }
      } else if (b === COMMA && this.depth === 0) {
        this.emit(chunk.subarray(from, i), i); // a scalar element ends at the comma
        from = -1;
        this.next = 'element';
      }
    }
    if (from >= 0) this.parts.push(chunk.slice(from));
    this.seen += chunk.length;
  }

  /** The body ended. @throws JsonArrayError when the array was not closed. */
  end(): void {
    if (this.phase !== 'end')
      throw new JsonArrayError(
        `ended after ${this.seen} bytes ${this.phase === 'start' ? 'before any [' : `inside the array (element ${this.count})`}`,
      );
  }

  private emit(tail: Uint8Array, i: number): void {
    let bytes = tail;
    if (this.parts.length > 0) {
      const n = this.parts.reduce((s, p) => s + p.length, 0) + tail.length;
      bytes = new Uint8Array(n);
      let at = 0;
      for (const p of this.parts) {
        bytes.set(p, at);
        at += p.length;
      }
      bytes.set(tail, at);
      this.parts = [];
    }
    let value: unknown;
    try {
      value = JSON.parse(this.decoder.decode(bytes));
    } catch (e) {
      throw this.bad(i, `element ${this.count} is not JSON (${(e as Error).message})`);
    }
    this.each(value, this.count++);
  }

  private bad(i: number, what: string): JsonArrayError {
    return new JsonArrayError(`${what} at byte ${this.seen + i}`);
  }
}
