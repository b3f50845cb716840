/**
 * The command examples of README.md and docs/reference.md: every line of their ```sh blocks
 * (continuations joined, trailing comments dropped), split into words as a POSIX shell would for
 * these simple lines (single and double quotes, no expansions).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Example {
  readonly file: string;
  readonly line: string;
  readonly words: readonly string[];
}

const repo = (rel: string) => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));

/** Words of one shell line; a `#` outside quotes starts a comment. */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (ch === ' ' || ch === '\t') {
      if (word !== null) out.push(word);
      word = null;
    } else if (ch === '#' && word === null) break;
    else word = (word ?? '') + ch;
  }
  if (word !== null) out.push(word);
  return out;
}

/** Every example line of the files' ```sh blocks. */
export async function docExamples(files: readonly string[]): Promise<Example[]> {
  const out: Example[] = [];
  for (const file of files) {
    const text = await readFile(repo(file), 'utf8');
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      const joined = block[1]!.replace(/\\\n\s*/g, ' ');
      for (const line of joined.split('\n')) {
        const words = shellWords(line.trim());
        if (words.length > 0) out.push({ file, line: line.trim(), words });
      }
    }
  }
  return out;
}
