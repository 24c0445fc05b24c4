import type { LabelQualityReport } from './api';

const BAR_HEIGHT = 22;
const LABEL_WIDTH = 110;
const CHART_WIDTH = 360;
const VALUE_WIDTH = 90;

export const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/**
 * Per class: a bar as long as its count, the share estimated mislabelled darker at its start. Plain
 * SVG scaled to the page's width; the table beside it says the same in words and links to Explore.
 */
export function ClassChart({ classes }: { classes: LabelQualityReport['classes'] }) {
  const largest = Math.max(1, ...classes.map((entry) => entry.count));
  const scale = (count: number) => (count / largest) * (CHART_WIDTH - LABEL_WIDTH - VALUE_WIDTH);
  return (
    <svg
      className="class-chart"
      viewBox={`0 0 ${CHART_WIDTH} ${classes.length * BAR_HEIGHT + 4}`}
      role="img"
      aria-label={`Images per class and estimated error rate: ${classes.map((entry) => `${entry.label} ${entry.count}, ${percent(entry.estimated_error_rate)}`).join('; ')}`}
      data-testid="class-chart"
    >
      {classes.map((entry, row) => {
        const y = row * BAR_HEIGHT + 2;
        const width = scale(entry.count);
        return (
          <g key={entry.label} data-class={entry.label}>
            <text x={LABEL_WIDTH - 6} y={y + 15} textAnchor="end" className="class-chart-label">
              {entry.label.length > 16 ? `${entry.label.slice(0, 15)}…` : entry.label}
            </text>
            <rect x={LABEL_WIDTH} y={y + 3} width={Math.max(1, width)} height={BAR_HEIGHT - 6} className="class-chart-bar" />
            <rect x={LABEL_WIDTH} y={y + 3} width={width * entry.estimated_error_rate} height={BAR_HEIGHT - 6} className="class-chart-errors" />
            <text x={LABEL_WIDTH + width + 4} y={y + 15} className="class-chart-value">
              {entry.count} · {percent(entry.estimated_error_rate)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
