import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  color: string;
  /** null marks a period with no observed data: a gap, not a zero. */
  values: (number | null)[];
}

/** A line chart of periods (x in Unix seconds), resized with its container. */
export function TimeChart({
  x,
  series,
  tz,
  title,
  yRange,
}: {
  x: number[];
  series: ChartSeries[];
  tz: string;
  title: string;
  /** A fixed y range (e.g. 0–100 for percentages) instead of one fitted to the values. */
  yRange?: [number, number];
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: 260,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          spanGaps: false,
          points: { show: x.length < 60 },
        })),
      ],
      ...(yRange ? { scales: { y: { range: yRange } } } : {}),
      axes: [{ stroke: '#3b4252' }, { stroke: '#3b4252', size: 48 }],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const plot = new uPlot(opts, [x, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, tz, yRange?.[0], yRange?.[1]]);
  return <div ref={box} className="chart" role="img" aria-label={title} />;
}
