import { z } from 'zod';

export const EmailSchema = z.email().max(320);

/** POST /api/v1/auth/login. */
export const LoginSchema = z.strictObject({
  email: EmailSchema,
  password: z.string().min(1).max(1024),
});
