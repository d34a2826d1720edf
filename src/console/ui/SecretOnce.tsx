import { useState } from 'react';

/**
 * A secret just issued (a credential's, a relay key's): shown here once, with a copy button,
 * never again. `lost` says what to do if it is lost.
 */
export function SecretOnce({
  name,
  secret,
  lost,
  onDone,
}: {
  name: string;
  secret: string;
  lost: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(secret);
    setCopied(true);
  };
  return (
    <section className="card secret" aria-labelledby="secret-title">
      <h3 id="secret-title">Copy the secret of “{name}” now</h3>
      <p>
        <strong>You won't see it again.</strong> {lost}
      </p>
      <div className="secret-row">
        <code data-testid="secret">{secret}</code>
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p role="status" className="small">
        {copied ? 'Secret copied to the clipboard.' : ''}
      </p>
      <button type="button" className="secondary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}
