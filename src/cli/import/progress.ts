/** What an import has done so far, for its progress display. */
export interface ImportProgress {
  done: number;
  /** Records expected in all, when known (a file's line count); null for stdin. */
  total: number | null;
}

const EVERY_MS_TTY = 200;
const EVERY_MS_PLAIN = 5000;

/**
 * Shows an import's progress on stderr: a bar redrawn in place on a terminal (records/s,
 * done/total, ETA), a plain line every few seconds otherwise (logs, CI).
 */
export function progressDisplay(out: NodeJS.WriteStream, read: () => ImportProgress) {
  const tty = out.isTTY === true;
  const started = Date.now();
  const line = () => {
    const { done, total } = read();
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const of = total === null ? '' : `/${total.toLocaleString('en-US')}`;
    const eta = total !== null && rate > 0 ? ` · ETA ${formatSeconds(Math.max(0, total - done) / rate)}` : '';
    const figures = `${done.toLocaleString('en-US')}${of} records · ${Math.round(rate).toLocaleString('en-US')} records/s${eta}`;
    if (!tty) return `radar import: ${figures}\n`;
    const width = 24;
    const filled = total ? Math.min(width, Math.round((done / total) * width)) : 0;
    const bar = total ? `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ` : '';
    return `\r\x1b[2K${bar}${figures}`;
  };
  const timer = setInterval(() => out.write(line()), tty ? EVERY_MS_TTY : EVERY_MS_PLAIN);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      out.write(tty ? `${line()}\n` : line());
    },
  };
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
