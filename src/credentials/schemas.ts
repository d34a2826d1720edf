import { z } from 'zod';
import { ALL_SCOPES, CREDENTIAL_KINDS, SCOPES_BY_KIND } from '../auth/scopes.ts';
import { text } from '../shared/text.ts';

const ScopeSchema = z.enum(ALL_SCOPES);

/** POST /sites/{siteId}/credentials (spec 2.6, CONTRACT §2 kinds). */
export const CredentialCreateSchema = z
  .strictObject({
    name: text({ min: 1, max: 160 }),
    kind: z.enum(CREDENTIAL_KINDS),
    scopes: z.array(ScopeSchema).min(1).max(25),
    expiresInDays: z.number().int().min(1).max(365).default(90),
    requestsPerMinute: z
      .number()
      .int()
      .min(0)
      .max(100_000_000)
      .nullable()
      .default(null)
      .describe("requests per minute this credential may make; null follows its site's limit, 0 = no limit"),
  })
  .superRefine((c, zctx) => {
    const allowed = SCOPES_BY_KIND[c.kind];
    c.scopes.forEach((s, i) => {
      if (!allowed.has(s)) {
        zctx.addIssue({
          code: 'custom',
          path: ['scopes', i],
          message: `scope ${s} is not allowed for a ${c.kind} credential`,
        });
      }
    });
    const dup = c.scopes.findIndex((s, i) => c.scopes.indexOf(s) !== i);
    if (dup >= 0) zctx.addIssue({ code: 'custom', path: ['scopes', dup], message: 'scope listed twice' });
  });

/** A credential as the API answers it; `secret` only in the answer that created it. */
export const CredentialSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(CREDENTIAL_KINDS),
  scopes: z.array(ScopeSchema),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  prefix: z.string(),
  revokedAt: z.iso.datetime().nullable(),
  requestsPerMinute: z.number().int().nullable(),
});
export type Credential = z.infer<typeof CredentialSchema>;

export type CredentialCreate = z.infer<typeof CredentialCreateSchema>;
