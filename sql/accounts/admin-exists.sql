-- Whether an enabled platform admin exists.
SELECT EXISTS (SELECT 1 FROM accounts WHERE admin AND disabled_at IS NULL) AS exists
