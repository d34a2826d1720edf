/** What GEO keeps of a model's answer. */
export interface AnswerContent {
  text: string;
  /** URLs of the answer's `url_citation` annotations, in order. */
  annotated: string[];
}

interface OutputText {
  type?: string;
  text?: unknown;
  annotations?: { type?: string; url?: unknown }[];
}

/**
 * The text and cited URLs of a Responses-protocol result (the relay converts chat channels'
 * answers to it): every `output_text` part of every message item, joined by blank lines.
 * Reasoning and tool items carry no answer text and are skipped.
 */
export function readResponsesAnswer(body: unknown): AnswerContent {
  const output = (body as { output?: unknown })?.output;
  if (!Array.isArray(output)) throw new Error('the answer has no output array');
  const texts: string[] = [];
  const annotated: string[] = [];
  for (const item of output as { type?: string; content?: unknown }[]) {
    if (item?.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content as OutputText[]) {
      if (part?.type !== 'output_text' || typeof part.text !== 'string') continue;
      texts.push(part.text);
      for (const a of part.annotations ?? [])
        if (a?.type === 'url_citation' && typeof a.url === 'string') annotated.push(a.url);
    }
  }
  return { text: texts.join('\n\n'), annotated };
}
