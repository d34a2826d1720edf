import { z } from 'zod';
import { EmailSchema } from '../accounts/schemas.ts';

export const PasswordSchema = z.string().min(8, 'must have at least 8 characters').max(1024);

/** POST /api/v1/admin/accounts. */
export const AccountCreateSchema = z.strictObject({
  email: EmailSchema,
  name: z.string().trim().min(1).max(200).optional(),
  password: PasswordSchema,
  admin: z.boolean().default(false),
});

/** PATCH /api/v1/admin/accounts/{accountId}. */
export const AccountUpdateSchema = z.strictObject({ disabled: z.boolean() });

/** POST /api/v1/setup: the first-run link's token and the platform admin to create. */
export const SetupSchema = z.strictObject({
  token: z.string().min(1).max(200),
  email: EmailSchema,
  name: z.string().trim().min(1).max(200).optional(),
  password: PasswordSchema,
});

/** GET /api/v1/admin/sites. */
export const AdminSitesQuerySchema = z.strictObject({
  status: z.enum(['pending_review', 'approved', 'rejected']).default('pending_review'),
});

/** POST /api/v1/admin/sites/{siteId}/review. */
export const ReviewSchema = z.strictObject({
  decision: z.enum(['approved', 'rejected']),
});
