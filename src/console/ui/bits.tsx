import { useId, type ReactNode } from 'react';
import type { ApiError } from '../api/client.ts';
import type { ReviewStatus } from '../api/types.ts';
import { safeHref } from './format.ts';

export function ErrorNote({ error }: { error: ApiError | null }) {
  if (!error) return null;
  return (
    <div role="alert" className="error">
      {error.message}
      {error.problem?.errors && (
        <ul>
          {error.problem.errors.map((e) => (
            <li key={e.path + e.message}>
              <code>{e.path}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

const STATUS_TEXT: Record<ReviewStatus, string> = {
  pending_review: 'In review',
  approved: 'Approved',
  rejected: 'Rejected',
};
export function ReviewBadge({ status }: { status: ReviewStatus }) {
  return <span className={`badge badge-${status}`}>{STATUS_TEXT[status]}</span>;
}

export function ExternalLink({ url }: { url: string }) {
  const href = safeHref(url);
  if (!href) return <span>{url}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {url}
    </a>
  );
}

/** A labelled form control with its error message tied to it. */
export function Field(props: {
  label: string;
  error?: string;
  hint?: string;
  children: (id: string, describedBy: string | undefined) => ReactNode;
}) {
  const id = useId();
  const note = props.error || props.hint ? `${id}-note` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, note)}
      {props.error ? (
        <span id={note} className="field-error">
          {props.error}
        </span>
      ) : props.hint ? (
        <span id={note} className="muted small">
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}
