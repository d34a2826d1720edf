import { z } from 'zod';

/** A model id as providers spell them (gpt-5.1-codex, models/gemini-2.5-pro, org/model:tag). */
export const ModelIdSchema = z
  .string()
  .regex(/^[\w.:/@+-]{1,200}$/, 'a model id is 1 to 200 letters, digits or _ . : / @ + -');

/** An effort value: a lower-case word such as low, minimal or xhigh. */
export const EffortSchema = z.string().regex(/^[a-z]{1,20}$/, 'an effort is a lower-case word');

/** Splits a comma list, dropping blanks and repeats. */
export function splitList(value: string): string[] {
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}
