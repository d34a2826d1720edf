-- Creates a relay key. Takes ${name}, ${keyHash}, ${prefix}, ${models}, the settings
-- ${rpm}, ${tpm}, ${budgetNanos}, ${budgetCurrency}, ${budgetPeriod}, ${expiresAt},
-- ${siteId}, and either ${accountId} (an account's key; its group is the account's) or
-- ${group} (a CLI key without an account); returns the key row.
INSERT INTO relay_keys (name, key_hash, prefix, models, account_id, key_group,
                        rpm, tpm, budget_nanos, budget_currency, budget_period, expires_at, site_id)
VALUES (${name}, ${keyHash}, ${prefix}, ${models}::text[], ${accountId}, ${group},
        ${rpm}, ${tpm}, ${budgetNanos}, ${budgetCurrency}, ${budgetPeriod}, ${expiresAt}, ${siteId})
RETURNING id, name, prefix, models, created_at, disabled_at, rpm, tpm, budget_nanos, budget_currency, budget_period, expires_at, site_id
