import { Link } from 'wouter';

/** What a GEO page says before the site is configured, with the way to do it. */
export function NotConfigured({ siteId }: { siteId: string }) {
  return (
    <p className="card">
      GEO is not set up for this site yet.{' '}
      <Link href={`/sites/${siteId}/geo/setup`}>Set the brand, competitors and models</Link>, then add the prompts your
      customers ask.
    </p>
  );
}
