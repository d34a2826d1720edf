import { addMoney, currenciesOf, sortedMoney, type Money } from '../analytics/figures.ts';
import type { OutcomeRow, VisitSource } from './repo.ts';
import { AI_ASSISTANTS, visitAssistant, type AssistantId } from './traffic.ts';

/** What one AI assistant brought in over a window. */
export interface AssistantFigures {
  assistant: AssistantId;
  /** Visit events it sent. */
  visits: number;
  /** Distinct identified users of those visits. */
  visitors: number;
  /** Of the users whose first touch it was: what they did in the window. */
  first_touch: { registrations: number; activations: number; paid_orders: number; revenue: Money };
  /** Paid orders and revenue whose last touch before them it was. */
  last_touch: { paid_orders: number; revenue: Money };
}

/**
 * Every assistant's figures (zeros included, in AI_ASSISTANTS order) from the window's visit
 * sources (with their users) and its outcomes by touch; sources naming no assistant are left
 * out. Returns the currencies of every revenue figure too.
 */
export function assistantFigures(
  visits: readonly (VisitSource & { visits: number; users: readonly string[] })[],
  outcomes: readonly OutcomeRow[],
): { assistants: AssistantFigures[]; currencies: string[] } {
  const rows = new Map<AssistantId, AssistantFigures & { users: Set<string> }>(
    AI_ASSISTANTS.map((a) => [
      a.id,
      {
        assistant: a.id,
        visits: 0,
        visitors: 0,
        first_touch: { registrations: 0, activations: 0, paid_orders: 0, revenue: {} },
        last_touch: { paid_orders: 0, revenue: {} },
        users: new Set(),
      },
    ]),
  );
  for (const v of visits) {
    const a = visitAssistant(v);
    if (!a) continue;
    const row = rows.get(a)!;
    row.visits += v.visits;
    for (const u of v.users) row.users.add(u);
  }
  for (const o of outcomes) {
    const a = visitAssistant(o);
    if (!a) continue;
    const row = rows.get(a)!;
    if (o.touch === 'first') {
      if (o.metric === 'revenue') addMoney(row.first_touch.revenue, o.currency, o.value);
      else row.first_touch[o.metric] += o.value;
    } else if (o.metric === 'revenue') addMoney(row.last_touch.revenue, o.currency, o.value);
    else if (o.metric === 'paid_orders') row.last_touch.paid_orders += o.value;
  }
  const assistants = [...rows.values()].map(({ users, ...row }) => ({
    ...row,
    visitors: users.size,
    first_touch: { ...row.first_touch, revenue: sortedMoney(row.first_touch.revenue) },
    last_touch: { ...row.last_touch, revenue: sortedMoney(row.last_touch.revenue) },
  }));
  return {
    assistants,
    currencies: currenciesOf(assistants.flatMap((a) => [a.first_touch.revenue, a.last_touch.revenue])),
  };
}
