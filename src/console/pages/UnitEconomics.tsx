import { api, call } from '../api/client.ts';
import type { AnalyticsAnswer } from '../api/types.ts';
import { ErrorNote, Loading } from '../ui/bits.tsx';
import { count, moneyList, percent } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';

type UnitEconomicsData = AnalyticsAnswer<'unit-economics'>['data'];
type CustomerList = UnitEconomicsData['top_spenders'][number];
type CustomerEconomics = CustomerList['customers'][number];

const REASONS = {
  currencies_differ: 'revenue and spend in different currencies',
  unpriced_calls: 'calls without a price',
} as const;

function Margin({ c }: { c: CustomerEconomics }) {
  if (c.margin === null) return <span className="muted">— ({REASONS[c.margin_reason!]})</span>;
  const negative = Object.values(c.margin).some((v) => v < 0);
  return <span className={negative ? 'negative' : undefined}>{moneyList(c.margin)}</span>;
}

function CustomerTable({ list, caption }: { list: CustomerList; caption: string }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <caption>
          {caption} ({list.currency})
        </caption>
        <thead>
          <tr>
            <th scope="col">Customer</th>
            <th scope="col">Revenue</th>
            <th scope="col">Model spend</th>
            <th scope="col">Margin</th>
            <th scope="col" className="num">
              Calls
            </th>
            <th scope="col" className="num">
              Tokens in / out
            </th>
          </tr>
        </thead>
        <tbody>
          {list.customers.map((c) => (
            <tr key={c.external_user_id}>
              <th scope="row">{c.external_user_id}</th>
              <td>{moneyList(c.revenue)}</td>
              <td>{moneyList(c.spend)}</td>
              <td>
                <Margin c={c} />
              </td>
              <td className="num">
                {count(c.calls)}
                {c.unpriced_calls > 0 && <> ({count(c.unpriced_calls)} unpriced)</>}
              </td>
              <td className="num">
                {count(c.input_tokens)} / {count(c.output_tokens)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The Analytics page's unit economics: what each customer brings in against what their model
 * calls through the site's relay keys cost, per currency, never converted.
 */
export default function UnitEconomics({
  siteId,
  query,
}: {
  siteId: string;
  query: { from: string; to: string; tz: string };
}) {
  const loaded = useLoad(
    () =>
      call<AnalyticsAnswer<'unit-economics'>>(
        api.GET('/api/v1/sites/{siteId}/analytics/unit-economics', { params: { path: { siteId }, query } }),
      ),
    `${siteId}/${query.from}/${query.to}/${query.tz}`,
  );
  const d = loaded.data?.data;
  return (
    <section aria-labelledby="economics-title">
      <h2 id="economics-title">Unit economics</h2>
      <ErrorNote error={loaded.error} />
      {!d ? (
        !loaded.error && <Loading what="unit economics" />
      ) : (
        <>
          <p className="small muted">
            Revenue (payments − refunds) against model spend through this site's relay keys, per customer. A margin is
            shown only where both are in one currency and every call has a price.
          </p>
          <div className="figures">
            <div className="figure" data-testid="fig-negative-share">
              <span className="figure-label">Customers losing money</span>
              <span className="figure-value">
                {percent(d.customers.negative_margin_share)} ({count(d.customers.negative_margin)} of{' '}
                {count(d.customers.with_margin)})
              </span>
            </div>
            <div className="figure">
              <span className="figure-label">Model spend</span>
              <span className="figure-value">{moneyList(d.totals.spend)}</span>
            </div>
            <div className="figure">
              <span className="figure-label">Calls (unpriced)</span>
              <span className="figure-value">
                {count(d.totals.calls)} ({count(d.totals.unpriced_calls)})
              </span>
            </div>
            <div className="figure">
              <span className="figure-label">Margin unknown</span>
              <span className="figure-value">
                {count(d.customers.margin_unknown.currencies_differ + d.customers.margin_unknown.unpriced_calls)}
              </span>
            </div>
          </div>
          {d.top_spenders.map((l) => (
            <CustomerTable key={`spend-${l.currency}`} list={l} caption="Highest model spend" />
          ))}
          {d.lowest_margins.map((l) => (
            <CustomerTable key={`margin-${l.currency}`} list={l} caption="Lowest margins" />
          ))}
          {d.top_spenders.length === 0 && <p className="muted">No model calls through this site's relay keys.</p>}
        </>
      )}
    </section>
  );
}
