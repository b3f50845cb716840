import type { z } from 'zod';
import { SnowdbError } from '../errors.js';

/**
 * Parse `text` (the contents of `file`) as JSON validated by `schema`.
 * @param what names the expected content in errors, e.g. `a snowdb root config`.
 * @throws SnowdbError `invalid-config`: `<file> is not <what> at <path>: <problem><hint>`.
 */
export function parseJsonAs<T>(text: string, file: string, schema: z.ZodType<T>, what: string, hint = ''): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new SnowdbError('invalid-config', `${file} is not valid JSON (${(e as Error).message})${hint}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new SnowdbError('invalid-config', `${file} is not ${what}${where}: ${issue?.message}${hint}`);
  }
  return parsed.data;
}
