import { z } from 'zod';
import { AmountSchema, CurrencySchema } from './money.ts';
import { EffortSchema, ModelIdSchema } from './names.ts';
import { text } from '../shared/text.ts';
import { DEFAULT_EFFORTS, PROTOCOLS } from './protocol.ts';

export const GroupNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a group name is 1 to 64 letters, digits or _ . -');

/** Model ids, or `['*']` for every model (of the group, for a key). */
export const ModelListSchema = z.union([
  z.tuple([z.literal('*')]),
  z
    .array(ModelIdSchema)
    .min(1)
    .max(1000)
    .refine((a) => new Set(a).size === a.length, 'a model is listed twice'),
]);

const PerMinuteValue = z.number().int().min(1).max(100_000_000);
const PerMinute = PerMinuteValue.nullable().default(null);

/** PUT /api/v1/relay/groups/{group}: the whole group, replaced. */
export const GroupPutSchema = z.strictObject({
  models: ModelListSchema,
  requestsPerMinute: PerMinute,
  tokensPerMinute: PerMinute,
});

/** PUT /api/v1/relay/accounts/{accountId}/group */
export const AccountGroupSchema = z.strictObject({ group: GroupNameSchema });

/** POST /api/v1/relay/channels, and `radar relay channel add`. */
export const ChannelCreateSchema = z.strictObject({
  name: text({ min: 1, max: 160 }),
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL such as https://api.openai.com/v1' })
    .transform((u) => u.replace(/\/+$/, '')),
  apiKey: text({ min: 1 }).nullable().default(null),
  models: z.array(ModelIdSchema).min(1, 'at least one model'),
  protocols: z
    .array(z.enum(PROTOCOLS))
    .min(1)
    .default([...PROTOCOLS]),
  priority: z.number().int().min(-1000).max(1000).default(0),
  weight: z.number().int().min(1).max(1000).default(1),
});

/** POST /api/v1/relay/models, and `radar relay model set`: a model's settings, replaced. */
export const ModelPutSchema = z.strictObject({
  id: ModelIdSchema,
  efforts: z.array(EffortSchema).default([...DEFAULT_EFFORTS]),
  kind: z.enum(['chat', 'embedding'], { error: 'must be chat or embedding' }).default('chat'),
  allowUnpriced: z.boolean().default(false),
});

/** POST /api/v1/relay/prices, and `radar relay price set`: amounts per million tokens. */
export const PriceCreateSchema = z.strictObject({
  model: ModelIdSchema,
  currency: CurrencySchema,
  input: AmountSchema,
  /** Defaults to the input price: no discount for cached input unless one is given. */
  cachedInput: AmountSchema.optional(),
  output: AmountSchema,
  /** Now or later (default now): a price never reaches back to calls already made. */
  effectiveAt: z.iso
    .datetime({ offset: true })
    .refine((t) => Date.parse(t) >= Date.now(), 'must not be in the past')
    .nullable()
    .default(null),
});

export const PriceQuerySchema = z.strictObject({ model: ModelIdSchema.optional() });

const KeyName = text({ min: 1, max: 160 });

/** A spending cap: `amount` (decimal string) in `currency` per UTC day, UTC month, or in all. */
export const BudgetSchema = z.strictObject({
  amount: AmountSchema.refine((n) => n > 0, 'must be more than 0'),
  currency: CurrencySchema,
  period: z.enum(['day', 'month', 'total']),
});

const Expiry = z.iso.datetime({ offset: true }).refine((t) => Date.parse(t) > Date.now(), 'must be in the future');

/** The settings of a key; each null means none (limits then come from the group). */
const keySettings = {
  requestsPerMinute: PerMinuteValue.nullable(),
  tokensPerMinute: PerMinuteValue.nullable(),
  budget: BudgetSchema.nullable(),
  expiresAt: Expiry.nullable(),
  /** A site of the caller's the key is used for. */
  siteId: z.uuid().nullable(),
};

/** POST /api/v1/me/relay-keys */
export const KeyCreateSchema = z.strictObject({
  name: KeyName,
  models: ModelListSchema,
  requestsPerMinute: keySettings.requestsPerMinute.default(null),
  tokensPerMinute: keySettings.tokensPerMinute.default(null),
  budget: keySettings.budget.default(null),
  expiresAt: keySettings.expiresAt.default(null),
  siteId: keySettings.siteId.default(null),
});
export type KeyCreate = z.output<typeof KeyCreateSchema>;

/** PATCH /api/v1/me/relay-keys/{keyId}: what is given changes, null clears a setting. */
export const KeyPatchSchema = z.strictObject({
  name: KeyName.optional(),
  disabled: z.boolean().optional(),
  requestsPerMinute: keySettings.requestsPerMinute.optional(),
  tokensPerMinute: keySettings.tokensPerMinute.optional(),
  budget: keySettings.budget.optional(),
  expiresAt: keySettings.expiresAt.optional(),
  siteId: keySettings.siteId.optional(),
});
export type KeyPatch = z.output<typeof KeyPatchSchema>;

/* What the relay's admin and key endpoints answer. */

const Instant = z.iso.datetime();
/** A decimal amount per million tokens (or of a budget) as a string, never a float: "0.15". */
const Decimal = z.string().describe('decimal amount, e.g. "0.15"');

export const RelayGroupAnswer = z.object({
  name: z.string(),
  models: z.array(z.string()).describe('model ids, or ["*"] for every model'),
  requestsPerMinute: z.int().nullable(),
  tokensPerMinute: z.int().nullable(),
  createdAt: Instant,
  updatedAt: Instant,
});

export const RelayPriceAnswer = z.object({
  model: z.string(),
  currency: z.string(),
  effectiveAt: Instant,
  input: Decimal,
  cachedInput: Decimal,
  output: Decimal,
});

export const RelayModelAnswer = z.object({
  id: z.string(),
  efforts: z.array(z.string()),
  kind: z.enum(['chat', 'embedding']),
  allowUnpriced: z.boolean(),
});

export const RelayChannelAnswer = z.object({
  id: z.uuid(),
  name: z.string(),
  baseUrl: z.string(),
  models: z.array(z.string()),
  protocols: z.array(z.enum(PROTOCOLS)),
  priority: z.int(),
  weight: z.int(),
  enabled: z.boolean(),
  createdAt: Instant,
});

export const RelayKeyAnswer = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  models: z.array(z.string()),
  requestsPerMinute: z.int().nullable(),
  tokensPerMinute: z.int().nullable(),
  budget: z.object({ amount: Decimal, currency: z.string(), period: z.enum(['day', 'month', 'total']) }).nullable(),
  expiresAt: Instant.nullable(),
  siteId: z.uuid().nullable(),
  createdAt: Instant,
  disabledAt: Instant.nullable(),
});
