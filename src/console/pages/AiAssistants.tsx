import { api, call } from '../api/client.ts';
import type { Answer } from '../api/types.ts';
import { ErrorNote, Loading } from '../ui/bits.tsx';
import { count, moneyList } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';

type Traffic = Answer<'/api/v1/sites/{siteId}/geo/traffic', 'get'>;
type AssistantFigures = Traffic['data']['assistants'][number];

const NAMES: Record<string, string> = {
  chatgpt: 'ChatGPT',
  perplexity: 'Perplexity',
  claude: 'Claude',
  gemini: 'Gemini',
  copilot: 'Copilot',
  deepseek: 'DeepSeek',
  grok: 'Grok',
  meta_ai: 'Meta AI',
  mistral: 'Le Chat',
  kimi: 'Kimi',
  doubao: 'Doubao',
  qwen: 'Qwen',
  yuanbao: 'Yuanbao',
};

const brought = (a: AssistantFigures) =>
  a.visits + a.first_touch.registrations + a.first_touch.paid_orders + a.last_touch.paid_orders > 0;

/**
 * The Analytics page's acquisition by AI assistant: visits and visitors each sent, and what
 * the users it first brought (and the orders it last touched) came to.
 */
export default function AiAssistants({
  siteId,
  query,
}: {
  siteId: string;
  query: { from: string; to: string; tz: string };
}) {
  const loaded = useLoad(
    () => call<Traffic>(api.GET('/api/v1/sites/{siteId}/geo/traffic', { params: { path: { siteId }, query } })),
    `${siteId}/${query.from}/${query.to}/${query.tz}`,
  );
  const rows = loaded.data?.data.assistants.filter(brought);
  return (
    <div className="table-wrap" tabIndex={0}>
      <ErrorNote error={loaded.error} />
      {!rows ? (
        !loaded.error && <Loading what="AI assistants" />
      ) : (
        <table>
          <caption>AI assistants</caption>
          <thead>
            <tr>
              <th scope="col">Assistant</th>
              <th scope="col" className="num">
                Visits
              </th>
              <th scope="col" className="num">
                Visitors
              </th>
              <th scope="col" className="num">
                Registrations
              </th>
              <th scope="col" className="num">
                Activations
              </th>
              <th scope="col" className="num">
                Paid (first touch)
              </th>
              <th scope="col">Revenue (first touch)</th>
              <th scope="col" className="num">
                Paid (last touch)
              </th>
              <th scope="col">Revenue (last touch)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((a) => (
              <tr key={a.assistant}>
                <th scope="row">{NAMES[a.assistant] ?? a.assistant}</th>
                <td className="num">{count(a.visits)}</td>
                <td className="num">{count(a.visitors)}</td>
                <td className="num">{count(a.first_touch.registrations)}</td>
                <td className="num">{count(a.first_touch.activations)}</td>
                <td className="num">{count(a.first_touch.paid_orders)}</td>
                <td>{moneyList(a.first_touch.revenue)}</td>
                <td className="num">{count(a.last_touch.paid_orders)}</td>
                <td>{moneyList(a.last_touch.revenue)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rows?.length === 0 && <p className="muted">No visits from AI assistants in this window.</p>}
    </div>
  );
}
