import { z } from 'zod';

export const EmailSchema = z.email().max(320);

/** An account as the API answers it (never its password). */
export const AccountSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  admin: z.boolean(),
  createdAt: z.iso.datetime(),
  disabledAt: z.iso.datetime().nullable(),
});
export type Account = z.infer<typeof AccountSchema>;

/** What login and the first-run setup answer: the account and when its new session ends. */
export const SessionAnswerSchema = z.object({ account: AccountSchema, expiresAt: z.iso.datetime() });

/** POST /api/v1/auth/login. */
export const LoginSchema = z.strictObject({
  email: EmailSchema,
  password: z.string().min(1).max(1024),
});
