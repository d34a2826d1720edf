/**
 * Shapes of the GEO endpoints' answers as the console reads them (src/geo/present.ts and
 * reports.ts); like responses.ts, to be replaced by generated types once the routes declare them.
 */
import type { Mention } from '../../geo/mentions.ts';

// The server's own type (mentions.ts is free of Node); visibility.ts reaches the database
// module, so its Ratio and GeoMetrics are restated below.
export type { Mention as GeoMention };

export interface GeoEntity {
  name: string;
  aliases: string[];
}

export interface GeoConfig {
  brand: GeoEntity;
  competitors: GeoEntity[];
  models: string[];
  locale: string;
  schedule: { cron: string; tz?: string } | null;
  created_at: string;
  updated_at: string;
}

export interface GeoPrompt {
  id: string;
  text: string;
  created_at: string;
}

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'partial' | 'failed';

export interface GeoRun {
  id: string;
  trigger: 'manual' | 'schedule';
  status: RunStatus;
  scheduled_for: string | null;
  models: string[];
  prompts: number;
  answers: { total: number; succeeded: number; failed: number; pending: number };
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface GeoAnswer {
  id: string;
  run_id: string;
  prompt: string;
  model: string;
  status: 'pending' | 'succeeded' | 'failed';
  text: string | null;
  error: string | null;
  brand: { mentioned: boolean; position: number | null };
  mentions: Mention[];
  citations: { url: string; domain: string; source: 'annotation' | 'text'; own_domain: boolean }[];
  created_at: string;
  answered_at: string | null;
}

export interface GeoCitedUrl {
  url: string;
  domain: string;
  own_domain: boolean;
  answers: number;
  models: string[];
  first_cited_at: string;
  last_cited_at: string;
}

export interface Ratio {
  value: number | null;
  numerator: number;
  denominator: number;
}

export interface GeoMetrics {
  answers: number;
  mention_rate: Ratio;
  share_of_voice: Ratio;
  citation_rate: Ratio;
  average_position: number | null;
}

export interface GeoWindow {
  from: string;
  to: string;
  tz: string;
  days: number;
}

export interface GeoOverview {
  data: {
    overall: GeoMetrics;
    models: Record<string, GeoMetrics>;
    entities: {
      name: string;
      kind: 'brand' | 'competitor';
      answers: number;
      mention_rate: Ratio;
      average_position: number | null;
    }[];
    coverage: {
      runs: { succeeded: number; partial: number; failed: number; in_progress: number; rate: Ratio };
      models: { configured: string[]; answered: string[]; rate: Ratio };
    };
  };
  window: GeoWindow;
  freshness: { as_of: string; last_answer_at: string | null };
}

export interface GeoTrends {
  data: { day: string; overall: GeoMetrics; models: Record<string, GeoMetrics> }[];
  window: GeoWindow;
}

export interface GeoTraffic {
  data: {
    visits: number;
    assistants: { assistant: string; visits: number }[];
    days: { day: string; visits: number; assistants: Record<string, number> }[];
  };
  window: GeoWindow;
}

export interface GeoAudit {
  id: string;
  url: string;
  final_url: string | null;
  status: 'running' | 'completed' | 'failed';
  score: number | null;
  checks: { id: string; status: 'pass' | 'warn' | 'fail'; detail: string }[];
  error: string | null;
  created_at?: string;
  completed_at: string | null;
}

export interface Paged<T> {
  data: T[];
  pagination: { limit: number; offset: number; total: number; next_offset: number | null };
}
