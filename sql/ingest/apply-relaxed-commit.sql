-- Lets the apply transaction commit without waiting for its WAL flush. Safe because the
-- apply is replayable: its batch row was committed synchronously (as queued, with the
-- records) before the client got any answer, and a crash that loses this commit loses the
-- batch's "completed" with it, so the sweeper applies it again. Takes nothing.
SET LOCAL synchronous_commit TO off
