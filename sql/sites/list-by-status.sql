-- Sites in one review status with their owner's email, oldest change first: the review queue.
-- Takes ${status}.
SELECT s.*, a.email AS owner_email
FROM sites s JOIN accounts a ON a.id = s.account_id
WHERE s.review_status = ${status}::site_review_status
ORDER BY s.updated_at, s.id
